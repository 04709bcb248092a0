import { stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low } from 'lowdb';
import type { Change } from '../../ledger/change.js';
import { listLogs, LogWriter, logPath, readLog } from './change-log.js';
import { acquireLock, type Lock, realDataPath } from './lock-file.js';
import { SnapshotFile, syncDir } from './snapshot-file.js';
import { emptySnapshot, type Snapshot } from './snapshot-format.js';
import { checkCovered, checkNextLog, checkNoGap, coveringHeader } from './covered-logs.js';
import { CompactionBackoff } from './compaction-backoff.js';
import { type Deferred, deferred } from './deferred.js';
import type { Persistence, StateRecords } from '../../ledger/store.js';
import { StoreError } from '../../ledger/store-error.js';

export interface FilePersistenceOptions {
  /** Compact once the log holds at least this many bytes and at least as many as the snapshot. */
  compactMinBytes?: number;
}

export const DEFAULT_COMPACT_MIN_BYTES = 16 * 1024 * 1024;

const done = Promise.resolve();

/**
 * The durable store (docs/store.md): a lowdb snapshot (one record per line) plus an append-only change log.
 *
 * - commit: the batch joins the next group; one durable write per group (O_DSYNC on Linux), then every callback
 *   in the group is answered. Cost per callback is the size of its own changes, never the history.
 * - compaction: once the log outgrows the snapshot, a new log is started and the wallet's state
 *   (copied from the LocalStore's WalletState when it held exactly the logs up to the old one) is
 *   written as the new snapshot (temp, fsync, rename, fsync dir) in the background; the old logs go.
 */
export class FilePersistence implements Persistence {
  readonly kind = 'file';
  /** The state every commit is applied to before it reaches this store: what a snapshot copies (none: no compaction). */
  private state: StateRecords | undefined;
  /** The snapshot's records and the logged changes after it, until load() hands them over. */
  private loaded: Change[] = [];
  private log!: LogWriter;
  /** Logs the current snapshot does not yet include, oldest first (the active one last). */
  private logs: { seq: number; path: string }[] = [];

  private queuedJson: string[] = [];
  private nextGroup: Deferred | undefined;
  private inFlight: Promise<void> | undefined;
  /** The running drain loop; set from the first queued batch until the queue is empty. */
  private draining: Promise<void> | undefined;
  private failure: Error | undefined;
  private closed = false;
  /** A commit was refused after close: the state holds a change no log does, so it is never snapshotted. */
  private stateAhead = false;

  private compaction: Promise<void> | undefined;
  private compactRequested = false;
  compactions = 0;
  /** Failed compactions in a row, and when the next attempt may come. */
  readonly backoff: CompactionBackoff;

  private constructor(
    readonly path: string,
    private readonly db: Low<Snapshot>,
    private readonly snapshotFile: SnapshotFile,
    private readonly compactMinBytes: number,
    private readonly lock: Lock,
  ) {
    this.backoff = new CompactionBackoff(path, compactMinBytes);
  }

  /** The last compaction's failure, if any; the logs still hold everything, so it is retried later. */
  get compactionError(): Error | undefined {
    return this.backoff.error;
  }

  get compactionFailures(): number {
    return this.backoff.failures;
  }

  /** Opens (or creates) the store at `path`: snapshot, then every log after it, a torn tail dropped. */
  static async open(path: string, options: FilePersistenceOptions = {}): Promise<FilePersistence> {
    const full = await realDataPath(path);
    const dir = await stat(dirname(full)).catch(() => undefined);
    if (!dir?.isDirectory()) throw new StoreError(dirname(full), 'does not exist (the folder of --data); create it or choose another path');
    const lock = await acquireLock(full);
    try {
      const file = new SnapshotFile(full);
      const minBytes = options.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES;
      const store = new FilePersistence(full, new Low(file, emptySnapshot()), file, minBytes, lock);
      await store.recover();
      return store;
    } catch (e) {
      await lock.release();
      // Node's own errors (a failed truncate or fsync) may not name a file: this one does.
      throw e instanceof StoreError ? e : new StoreError(full, `cannot be opened: ${(e as Error).message}`);
    }
  }

  private async recover(): Promise<void> {
    await this.snapshotFile.removeTemp();
    await this.db.read();
    const snapshot = this.db.data.header;
    // Handed to load() as they are, the log's changes added to the same array: no copy of either.
    const records = this.db.data.changes;
    this.db.data = emptySnapshot();

    const logs = await listLogs(this.path);
    const pending = logs.filter((l) => l.seq > snapshot.log_seq);
    const covered = logs.filter((l) => l.seq <= snapshot.log_seq);
    if (covered.length) {
      await checkCovered(this.path, snapshot, covered, pending[0]);
      for (const old of covered) await unlink(old.path); // compacted, not yet removed
    }
    checkNoGap(this.path, snapshot, pending, this.snapshotFile.bytes > 0);
    checkNextLog(this.path, snapshot, pending, this.snapshotFile.bytes > 0);

    let truncateTo: number | undefined;
    for (const [i, l] of pending.entries()) {
      const newest = i === pending.length - 1;
      const read = await readLog(l.path, newest);
      for (const group of read.groups) for (const c of group) records.push(c);
      if (newest && read.tornBytes) {
        truncateTo = read.validBytes;
        process.emitWarning(`${l.path}: dropped a torn last line (${read.tornBytes} bytes) left by a crash; it was never acknowledged`);
      }
    }
    // An existing store that was emptied (POST /admin/reset with no players) must not look new,
    // or the simulator would seed it with the scenario's players again.
    const isNew = this.snapshotFile.bytes === 0 && !pending.length;
    this.loaded = records.length || isNew ? records : [{ op: 'clear' }];
    const active = pending.at(-1) ?? { seq: snapshot.log_seq + 1, path: logPath(this.path, snapshot.log_seq + 1) };
    this.log = await LogWriter.open(active.path, active.seq, truncateTo);
    if (!pending.length) await syncDir(dirname(this.path));
    // A new store's (empty) document is written at once, so --data names a real file: after its first log (checkNextLog).
    if (isNew) await this.db.write();
    this.logs = pending.length ? pending : [active];
  }

  async load(): Promise<Change[]> {
    const changes = this.loaded;
    this.loaded = [];
    return changes;
  }

  snapshotFrom(state: StateRecords): void {
    this.state = state;
  }

  commit(changes: readonly Change[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) {
      if (changes.length) this.stateAhead = true;
      return Promise.reject(new Error(`${this.path}: the store is closed`));
    }
    if (!changes.length) return this.flush();
    this.queuedJson.push(JSON.stringify(changes).slice(1, -1));
    this.nextGroup ??= deferred();
    // Let every callback that arrived in this turn of the event loop join the group first.
    this.draining ??= new Promise((resolve) => setImmediate(resolve)).then(() => this.drain());
    return this.nextGroup.promise;
  }

  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.nextGroup?.promise ?? this.inFlight ?? done;
  }

  /** Writes queued batches, one group per write, until the queue is empty. */
  private async drain(): Promise<void> {
    while (this.nextGroup) {
      const group = this.nextGroup;
      const line = this.queuedJson.length ? Buffer.from(`[${this.queuedJson.join(',')}]\n`) : undefined;
      this.nextGroup = undefined;
      this.queuedJson = [];
      this.inFlight = group.promise;
      // The one instant the state is exactly a prefix of the logs: with the queue just emptied,
      // it holds what the logs hold plus this group. A snapshot copied now covers the active log
      // once this group is written to it; if the write fails, the store fails and it is dropped.
      const snapshot = this.compactionDue(line?.length ?? 0) ? this.copyState() : undefined;
      try {
        if (line) await this.log.append(line);
      } catch (e) {
        this.fail(group, e as Error);
        return;
      }
      group.resolve();
      if (snapshot) await this.startCompaction(snapshot);
    }
    this.inFlight = undefined;
    this.draining = undefined;
  }

  /**
   * After a failed write or fsync nothing later may be acknowledged: what reached the disk is
   * unknown (an fsync error can drop dirty pages). Every commit from now on fails.
   */
  private fail(group: Deferred, e: Error): void {
    this.failure = new Error(
      `${this.log.path}: write failed (${(e as NodeJS.ErrnoException).code ?? e.message}); the store accepts no more changes, restart to recover`,
    );
    group.reject(this.failure);
    this.nextGroup?.reject(this.failure);
    this.nextGroup = undefined;
    this.queuedJson = [];
    this.inFlight = undefined;
    this.draining = undefined;
  }

  /** Whether to compact once a group of `groupBytes` is in the active log. */
  private compactionDue(groupBytes: number): boolean {
    if (this.compaction || this.closed || this.failure || !this.state) return false;
    const bytes = this.log.bytes + groupBytes;
    return this.compactRequested || bytes >= Math.max(this.compactMinBytes, this.snapshotFile.bytes, this.backoff.retryAtBytes);
  }

  /**
   * The state's records, copied at once: the state goes on changing (rounds in place) while the
   * snapshot is written. Only called when the state holds exactly the logs (and a group being written).
   */
  private copyState(): Change[] {
    this.compactRequested = false;
    return [...this.state!.changes()];
  }

  /**
   * Called between groups, once everything in `changes` is in the active log: start a new log,
   * and write `changes` as the snapshot of everything up to the old one.
   */
  private async startCompaction(changes: Change[]): Promise<void> {
    const covered = this.log.seq;
    let next: LogWriter;
    try {
      next = await LogWriter.open(logPath(this.path, covered + 1), covered + 1);
      await syncDir(dirname(this.path));
    } catch (e) {
      this.backoff.failed(this.log.bytes, `cannot start a new log (${(e as Error).message})`, e as Error);
      return;
    }
    const old = this.log;
    this.log = next;
    this.logs.push({ seq: next.seq, path: next.path });
    await old.close().catch(() => undefined);
    this.compaction = this.compact(covered, changes).finally(() => {
      this.compaction = undefined;
    });
  }

  /** Compacts now, whatever the log size (tests, tools); resolves when the snapshot is written. */
  async compactNow(): Promise<void> {
    if (!this.state) throw new Error(`${this.path}: no state to snapshot; a file store is compacted through the LocalStore that owns it`);
    await this.compaction;
    if (this.failure) throw this.failure;
    this.compactRequested = true;
    // Compaction starts between groups, from the drain loop: an empty group gets one going.
    this.nextGroup ??= deferred();
    this.draining ??= Promise.resolve().then(() => this.drain());
    await this.draining;
    await this.compaction;
  }

  private async compact(covered: number, changes: Change[]): Promise<void> {
    try {
      const header = await coveringHeader(this.path, covered, changes.length);
      this.db.data = { header, changes };
      await this.db.write();
      this.compactions++;
      this.backoff.succeeded();
      const gone = this.logs.filter((l) => l.seq <= covered);
      this.logs = this.logs.filter((l) => l.seq > covered);
      for (const l of gone) await unlink(l.path).catch(() => undefined); // start-up removes any left over
    } catch (e) {
      this.backoff.failed(this.log.bytes, `compaction failed (${(e as Error).message})`, e as Error);
    } finally {
      this.db.data = emptySnapshot();
    }
  }

  /**
   * For tests: let go of the files as kill -9 would — nothing flushed, compacted or unlocked. The
   * lock stays on disk, but this process no longer counts it as held, so it is taken over.
   */
  async abandon(): Promise<void> {
    this.closed = true;
    this.lock.abandon();
    await this.log.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.draining;
    await this.compaction;
    // A clean shutdown leaves the whole state in the JSON document and an empty log. Nothing is
    // queued or being written now, so the state is exactly what the logs hold.
    if (this.state && !this.failure && !this.stateAhead && this.log.bytes > 0) {
      await this.startCompaction(this.copyState());
      await this.compaction;
    }
    await this.log.close().catch(() => undefined);
    await this.lock.release();
  }
}
