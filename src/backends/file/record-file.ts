import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDir } from './snapshot-file.js';
import { acquireLock, type Lock } from './lock-file.js';

/**
 * A small set of records, by id, kept in one JSON file (hosted mode's tenant registry under
 * `--data`): each change rewrites the file durably (temp file, fsync, rename, fsync of the
 * directory) before it resolves, so what was acknowledged survives a kill -9, and a crash leaves
 * the old file or the new one, never a torn one. Locked to one process, as the wallet's files are.
 */
export class RecordFile<T extends { id: string }> {
  private constructor(
    readonly path: string,
    private readonly records: Map<string, T>,
    private readonly lock: Lock,
  ) {}

  /** Opens (and locks) the file; an unreadable one throws an Error naming it and what to do. */
  static async open<T extends { id: string }>(path: string): Promise<RecordFile<T>> {
    await mkdir(dirname(path), { recursive: true });
    const lock = await acquireLock(path);
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        await lock.release();
        throw e;
      }
    }
    let records: T[] = [];
    if (text !== undefined) {
      try {
        records = (JSON.parse(text) as { records: T[] }).records;
        if (!Array.isArray(records)) throw new Error('no "records" array');
      } catch (e) {
        await lock.release();
        throw new Error(`${path} cannot be read (${(e as Error).message}): it is never replaced; move it aside to start afresh`, {
          cause: e,
        });
      }
    }
    return new RecordFile(path, new Map(records.map((r) => [r.id, r])), lock);
  }

  all(): T[] {
    return [...this.records.values()];
  }

  put(record: T): Promise<void> {
    return this.write((records) => records.set(record.id, record));
  }

  remove(id: string): Promise<void> {
    return this.write((records) => records.delete(id));
  }

  /** Writes are queued: one rewrite at a time, each of the records as they stand after it. */
  private writing: Promise<void> = Promise.resolve();

  private write(change: (records: Map<string, T>) => unknown): Promise<void> {
    const run = async () => {
      const next = new Map(this.records);
      change(next);
      const temp = `${this.path}.tmp`;
      const fh = await open(temp, 'w', 0o600);
      try {
        await fh.writeFile(`${JSON.stringify({ records: [...next.values()] }, null, 1)}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(temp, this.path);
      await syncDir(dirname(this.path));
      this.records.clear();
      for (const [id, r] of next) this.records.set(id, r);
    };
    const done = this.writing.then(run, run);
    this.writing = done.catch(() => undefined);
    return done;
  }

  close(): Promise<void> {
    return this.writing.then(() => this.lock.release());
  }
}
