import { fileDigest } from './snapshot-file.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type SnapshotHeader } from './snapshot-format.js';
import { logPath } from './change-log.js';
import { StoreError } from '../../ledger/store-error.js';

/**
 * Logs a snapshot claims to include are deleted only when that is provable, since a wrong claim
 * (a damaged or hand-edited header, a snapshot from another copy) would silently lose changes.
 * A compaction creates log n+1 before it writes a snapshot of logs <= n, and deletes logs in
 * order, log n last: so next to a true snapshot of n, log n+1 exists and log n, while present,
 * is byte for byte the log that was folded in (its size and SHA-256 are in the header).
 */
export async function checkCovered(
  path: string,
  snapshot: SnapshotHeader,
  covered: { seq: number; path: string }[],
  next: { seq: number } | undefined,
): Promise<void> {
  const n = snapshot.log_seq;
  const refuse = (why: string) =>
    new StoreError(
      path,
      `says it includes the logs up to ${logPath(path, n)}, but ${why}. Nothing was deleted: ` +
        'put back the snapshot that belongs with these logs (or fix its log_seq), or restore the data files from a backup',
    );
  if (next?.seq !== n + 1) throw refuse(`${logPath(path, n + 1)}, which is created before such a snapshot is written, is missing`);
  if (snapshot.version === 1) return; // no digest recorded: the log n+1 rule is all there is
  const last = covered.at(-1)!;
  if (last.seq !== n) throw refuse(`${last.path} is on disk while ${logPath(path, n)} is not (log ${n} is always deleted last)`);
  const digest = await fileDigest(last.path).catch((e: NodeJS.ErrnoException) => {
    throw new StoreError(last.path, `cannot be read (${e.code ?? e.message}); check its permissions`);
  });
  if (digest.bytes !== snapshot.log_bytes || digest.sha256 !== snapshot.log_sha256) {
    throw refuse(
      `${last.path} is not the log it includes (${digest.bytes} bytes, SHA-256 ${digest.sha256.slice(0, 12)}…; the snapshot recorded ${snapshot.log_bytes} bytes, ${snapshot.log_sha256?.slice(0, 12)}…)`,
    );
  }
}

/**
 * The logs after the snapshot follow it without a gap; a missing one means lost changes. Logs with
 * no snapshot on disk (`snapshotOnDisk` false) that do not start at 1 follow a compaction whose
 * snapshot is gone; beside a snapshot, even an empty one (log_seq 0), the logs are what is missing.
 */
export function checkNoGap(
  path: string,
  snapshot: SnapshotHeader,
  pending: { seq: number; path: string }[],
  snapshotOnDisk: boolean,
): void {
  pending.forEach((l, i) => {
    const expected = snapshot.log_seq + 1 + i;
    if (l.seq !== expected) {
      const first = logPath(path, expected);
      const missing = !snapshotOnDisk
        ? `${path} (the snapshot) is missing or empty`
        : l.seq === expected + 1
          ? `${first} is missing`
          : `${first} to ${logPath(path, l.seq - 1)} are missing`;
      throw new StoreError(l.path, `follows a gap: ${missing}, so changes are lost; restore ${missing.includes(' are ') ? 'them' : 'it'}`);
    }
  });
}

/** The header of a snapshot of every log up to `covered`: what checkCovered verifies at start-up. */
export async function coveringHeader(path: string, covered: number, records: number): Promise<SnapshotHeader> {
  const log = await fileDigest(logPath(path, covered));
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    log_seq: covered,
    log_bytes: log.bytes,
    log_sha256: log.sha256,
    written_at: new Date().toISOString(),
    records,
  };
}

/**
 * Beside a snapshot of log n, log n+1 always exists (created before the snapshot is written, kept
 * empty by a clean shutdown): without it, whatever it held is lost (a data file copied or restored
 * without its logs). A version 1 snapshot predates the logs.
 */
export function checkNextLog(path: string, snapshot: SnapshotHeader, pending: readonly unknown[], snapshotOnDisk: boolean): void {
  if (!snapshotOnDisk || pending.length || snapshot.version < 2) return;
  const log = logPath(path, snapshot.log_seq + 1);
  throw new StoreError(
    log,
    `is missing beside ${path}, the snapshot of everything up to log ${snapshot.log_seq}: the changes written since are lost unless it is restored (copy or mount the data file together with its .log files); only if the snapshot was taken after a clean shutdown with nothing written since, create ${log} as an empty file to start from it`,
  );
}
