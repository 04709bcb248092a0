import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import type { Change } from '../wallet/state.js';
import { changeProblem } from './fold.js';
import { StoreError } from './store-error.js';

export const SNAPSHOT_FORMAT = 'wallet-sim-store';
export const SNAPSHOT_VERSION = 1;

/** The lowdb document: the folded state, and the last log it includes. */
export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  /** Every log with this sequence number or lower is folded into `changes`. */
  log_seq: number;
  written_at: string;
  changes: Change[];
}

export const emptySnapshot = (): Snapshot =>
  ({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, log_seq: 0, written_at: new Date(0).toISOString(), changes: [] });

/** Makes a rename or a new file in `dir` survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try { await fh.sync(); } finally { await fh.close(); }
}

const CHUNK = 1 << 20;

/**
 * lowdb's JSONFile, made durable: lowdb (through steno) writes a temp file and renames it, but
 * never fsyncs, so after a power cut the rename can survive while the data does not. Here: write
 * the temp file, fsync it, rename it over the old one, fsync the directory. The old snapshot stays
 * whole until the rename, so a kill at any instant leaves one complete snapshot or the other.
 *
 * The changes are written one per line in 1 MiB chunks: no single giant string, and the event loop
 * keeps serving callbacks between chunks while a big snapshot is written.
 */
export class DurableJsonFile implements Adapter<Snapshot> {
  readonly tempPath: string;
  /** Size in bytes of the snapshot last read or written. */
  bytes = 0;

  constructor(readonly path: string) {
    this.tempPath = `${path}.tmp`;
  }

  /** The snapshot, or null when there is none yet (no file, or an empty one). */
  async read(): Promise<Snapshot | null> {
    let text: string;
    try {
      const info = await stat(this.path);
      if (info.isDirectory()) throw new StoreError(this.path, 'is a directory, not a data file; give --data a file path');
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if (e instanceof StoreError) throw e;
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ENOENT') return null;
      throw new StoreError(this.path, `cannot be read (${err.code ?? err.message})`);
    }
    this.bytes = Buffer.byteLength(text);
    if (text.length === 0) return null;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new StoreError(this.path, `is not valid JSON (${(e as Error).message}); the file was left untouched: restore it from a backup or move it away to start empty`);
    }
    return validSnapshot(this.path, doc);
  }

  async write(doc: Snapshot): Promise<void> {
    const { changes, ...head } = doc;
    const fh = await open(this.tempPath, 'w');
    let bytes = 0;
    try {
      const put = async (s: string) => {
        const buf = Buffer.from(s);
        bytes += buf.length;
        let at = 0;
        while (at < buf.length) at += (await fh.write(buf, at)).bytesWritten;
      };
      let chunk = `${JSON.stringify(head).slice(0, -1)},"changes":[`;
      for (let i = 0; i < changes.length; i++) {
        chunk += `${i ? ',' : ''}\n${JSON.stringify(changes[i])}`;
        if (chunk.length >= CHUNK) {
          await put(chunk);
          chunk = '';
        }
      }
      await put(`${chunk}\n]}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(this.tempPath, this.path);
    await syncDir(dirname(this.path));
    this.bytes = bytes;
  }

  /** A temp file left by a crash during a write: never the real data, safe to drop. */
  async removeTemp(): Promise<void> {
    await unlink(this.tempPath).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw new StoreError(this.tempPath, `cannot remove a leftover temp file (${e.code})`);
    });
  }
}

function validSnapshot(path: string, doc: unknown): Snapshot {
  if (doc === null || typeof doc !== 'object' || (doc as { format?: unknown }).format !== SNAPSHOT_FORMAT) {
    throw new StoreError(path, `is not a wallet-sim data file (no "format": "${SNAPSHOT_FORMAT}"); point --data at another path`);
  }
  const d = doc as Partial<Snapshot>;
  if (d.version !== SNAPSHOT_VERSION) throw new StoreError(path, `has version ${JSON.stringify(d.version)}; this wallet-sim reads version ${SNAPSHOT_VERSION}`);
  if (!Number.isSafeInteger(d.log_seq) || (d.log_seq as number) < 0) throw new StoreError(path, '/log_seq must be an integer >= 0');
  if (!Array.isArray(d.changes)) throw new StoreError(path, '/changes must be an array');
  for (let i = 0; i < d.changes.length; i++) {
    const problem = changeProblem(d.changes[i]);
    if (problem) throw new StoreError(path, `/changes/${i} ${problem}`);
  }
  return d as Snapshot;
}
