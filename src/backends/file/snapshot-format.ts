import type { Change } from '../../ledger/change.js';
import { changeProblem } from '../../ledger/records.js';
import { StoreError } from '../../ledger/store-error.js';

/**
 * The snapshot format: its header and document types, and reading its lines (the header, each record,
 * a version 1 document); every problem names the file. Reading and writing the file is snapshot-file.ts.
 */

export const SNAPSHOT_FORMAT = 'wallet-sim-store';
/** 2: one JSON line per record after a header line. 1 (still read): one JSON document. */
export const SNAPSHOT_VERSION = 2;

/** The snapshot's first line. */
export interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  /** Every log with this sequence number or lower is folded into the records. */
  log_seq: number;
  /**
   * Log `log_seq` as it was when it was folded in (absent when log_seq is 0, and in version 1):
   * start-up deletes covered logs only when the one on disk is provably that log.
   */
  log_bytes?: number;
  log_sha256?: string;
  written_at: string;
  /** How many record lines follow: a file cut short is an error, not a smaller state. */
  records: number;
}

/**
 * The lowdb document: the header and the state's records (one per key as wallet-sim writes them;
 * whatever a file holds is folded in order at load, so a later record for a key wins).
 */
export interface Snapshot {
  header: SnapshotHeader;
  changes: Change[];
}

export const emptySnapshot = (): Snapshot => ({
  header: { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, log_seq: 0, written_at: new Date(0).toISOString(), records: 0 },
  changes: [],
});

export const UNTOUCHED = 'the file was left untouched';

/**
 * The first line: a version 2 header, the opening line of a version 1 file as its writer laid it
 * out (`…,"changes":[`), a whole version 1 document on one line, or undefined for anything else.
 */
export function firstLine(path: string, line: string): { header: SnapshotHeader; changes?: never } | Snapshot | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    if (!line.endsWith('"changes":[')) return undefined;
    try {
      v = JSON.parse(`${line}]}`);
    } catch {
      return undefined;
    }
    return { header: checkHeader(path, v, 1) };
  }
  const version = checkVersion(path, v);
  return version === 1 ? wholeV1(path, v) : { header: checkHeader(path, v, 2) };
}

function checkVersion(path: string, v: unknown): number {
  if (v === null || typeof v !== 'object' || (v as { format?: unknown }).format !== SNAPSHOT_FORMAT) {
    throw new StoreError(path, `is not a wallet-sim data file (no "format": "${SNAPSHOT_FORMAT}"); point --data at another path`);
  }
  const version = (v as { version?: unknown }).version;
  if (version !== 1 && version !== SNAPSHOT_VERSION) {
    throw new StoreError(
      path,
      `has version ${JSON.stringify(version)}; this wallet-sim reads versions 1 and ${SNAPSHOT_VERSION}: use the wallet-sim that wrote it`,
    );
  }
  return version;
}

function checkHeader(path: string, v: unknown, expected: 1 | 2): SnapshotHeader {
  if (checkVersion(path, v) !== expected)
    throw new StoreError(path, `line 1 is not a version ${expected} header; ${UNTOUCHED}: restore it from a backup`);
  const h = v as Record<string, unknown>;
  const problem =
    !Number.isSafeInteger(h.log_seq) || (h.log_seq as number) < 0
      ? '/log_seq must be an integer >= 0'
      : expected === 1
        ? Array.isArray(h.changes)
          ? undefined
          : '/changes must be an array'
        : !Number.isSafeInteger(h.records) || (h.records as number) < 0
          ? '/records must be an integer >= 0'
          : h.log_seq === 0
            ? undefined
            : !Number.isSafeInteger(h.log_bytes) || (h.log_bytes as number) < 0
              ? '/log_bytes must be an integer >= 0'
              : typeof h.log_sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(h.log_sha256)
                ? '/log_sha256 must be 64 hex digits'
                : undefined;
  if (problem) throw new StoreError(path, `line 1 (the header): ${problem}; ${UNTOUCHED}: restore it from a backup`);
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: expected,
    log_seq: h.log_seq as number,
    written_at: String(h.written_at ?? ''),
    records: expected === 1 ? 0 : (h.records as number),
  };
  if (expected === 2 && header.log_seq > 0) {
    header.log_bytes = h.log_bytes as number;
    header.log_sha256 = h.log_sha256 as string;
  }
  return header;
}

export function recordOf(path: string, line: number, text: string): Change {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StoreError(path, `line ${line} is not valid JSON (${(e as Error).message}); ${UNTOUCHED}: restore it from a backup`);
  }
  const problem = changeProblem(v);
  if (problem) throw new StoreError(path, `line ${line} ${problem}; ${UNTOUCHED}: correct that line or restore the file from a backup`);
  return v as Change;
}

export function wholeV1(path: string, doc: unknown): Snapshot {
  const header = checkHeader(path, doc, 1);
  const changes = (doc as { changes: unknown[] }).changes;
  for (let i = 0; i < changes.length; i++) {
    const problem = changeProblem(changes[i]);
    if (problem)
      throw new StoreError(path, `/changes/${i} ${problem}; ${UNTOUCHED}: correct that record or restore the file from a backup`);
  }
  return { header: { ...header, records: changes.length }, changes: changes as Change[] };
}
