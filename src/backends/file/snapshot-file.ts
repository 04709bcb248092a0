import { createHash } from 'node:crypto';
import { type FileHandle, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import type { Change } from '../../ledger/change.js';
import { LineTooLong, readLines } from './lines.js';
import {
  firstLine,
  recordOf,
  type Snapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type SnapshotHeader,
  UNTOUCHED,
  wholeV1,
} from './snapshot-format.js';
import { StoreError } from '../../ledger/store-error.js';

/** Makes a rename or a new file in `dir` survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Size and SHA-256 of a file, read as a stream. */
export async function fileDigest(path: string): Promise<{ bytes: number; sha256: string }> {
  const fh = await open(path, 'r');
  try {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of fh.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    return { bytes, sha256: hash.digest('hex') };
  } finally {
    await fh.close();
  }
}

const CHUNK = 1 << 20;

/**
 * The snapshot as a lowdb adapter: `read()` gives the whole state, `write()` replaces it. The
 * text is never one string: it is a header line and then one JSON line per record, written in
 * 1 MiB chunks and read back line by line, so its size is bounded by the disk, not by V8's
 * string limit, and the event loop keeps serving callbacks while a big snapshot is written.
 *
 * Durable, unlike lowdb's JSONFile (steno renames a temp file but never fsyncs, so after a power
 * cut the rename can survive while the data does not): write the temp file, fsync it, rename it
 * over the old one, fsync the directory. The old snapshot stays whole until the rename, so a kill
 * at any instant leaves one complete snapshot or the other.
 */
export class SnapshotFile implements Adapter<Snapshot> {
  readonly tempPath: string;
  /** Size in bytes of the snapshot last read or written. */
  bytes = 0;

  constructor(readonly path: string) {
    this.tempPath = `${path}.tmp`;
  }

  /** The snapshot, or null when there is none yet (no file, or an empty one). */
  async read(): Promise<Snapshot | null> {
    let fh: FileHandle;
    try {
      fh = await open(this.path, 'r');
      const info = await fh.stat().catch(async (e: unknown) => {
        await fh.close();
        throw e;
      });
      if (info.isDirectory()) {
        await fh.close();
        throw new StoreError(this.path, 'is a directory, not a data file; give --data a file path');
      }
      this.bytes = info.size;
    } catch (e) {
      if (e instanceof StoreError) throw e;
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ENOENT') return null;
      if (err.code === 'EISDIR') throw new StoreError(this.path, 'is a directory, not a data file; give --data a file path');
      throw new StoreError(this.path, `cannot be read (${err.code ?? err.message})`);
    }
    try {
      if (this.bytes === 0) return null;
      return await this.readLines(fh);
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (e instanceof LineTooLong)
        throw new StoreError(this.path, `${e.message}: not a line wallet-sim writes; ${UNTOUCHED}: restore it from a backup`);
      throw new StoreError(this.path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    } finally {
      await fh.close();
    }
  }

  private async readLines(fh: FileHandle): Promise<Snapshot | null> {
    const changes: Change[] = [];
    let header: SnapshotHeader | undefined;
    /** Version 1 as its writer laid it out: `{…,"changes":[`, one record per line, `]}`. */
    let v1Lines = false;
    let v1Closed = false;
    let n = 0;
    for await (const { no, text: line } of readLines(fh)) {
      n = no;
      if (!header) {
        const first = firstLine(this.path, line);
        if (!first) return this.readWholeV1(); // not a layout this reader streams: version 1 as one document
        if (first.changes) return first as Snapshot; // version 1 on one line
        header = first.header;
        v1Lines = header.version === 1;
        continue;
      }
      if (v1Lines) {
        if (v1Closed) throw new StoreError(this.path, `line ${n}: text after the closing "]}"; ${UNTOUCHED}: restore it from a backup`);
        if (line === ']}') {
          v1Closed = true;
          continue;
        }
      } else if (changes.length === header.records) {
        throw new StoreError(
          this.path,
          `line ${n}: more records than the ${header.records} its first line announces; ${UNTOUCHED}: restore it from a backup`,
        );
      }
      changes.push(recordOf(this.path, n, v1Lines && line.endsWith(',') ? line.slice(0, -1) : line));
    }
    if (!header) return null;
    if (v1Lines ? !v1Closed : changes.length !== header.records) {
      const what = v1Lines
        ? 'has no closing "]}"'
        : `ends after ${changes.length} of the ${header.records} records its first line announces`;
      throw new StoreError(this.path, `${what} (cut short?); ${UNTOUCHED}: restore it from a backup`);
    }
    return { header: v1Lines ? { ...header, records: changes.length } : header, changes };
  }

  /** Version 1 in a layout of its own (hand-written, reformatted): one JSON.parse, as version 1 always did. */
  private async readWholeV1(): Promise<Snapshot> {
    const text = await readFile(this.path, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new StoreError(this.path, `cannot be read (${e.code ?? e.message})`);
    });
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new StoreError(
        this.path,
        `is not valid JSON (${(e as Error).message}); ${UNTOUCHED}: restore it from a backup or move it away to start empty`,
      );
    }
    return wholeV1(this.path, doc);
  }

  async write(doc: Snapshot): Promise<void> {
    const { header, changes } = doc;
    const fh = await open(this.tempPath, 'w');
    let bytes = 0;
    try {
      const put = async (s: string) => {
        const buf = Buffer.from(s);
        bytes += buf.length;
        let at = 0;
        while (at < buf.length) at += (await fh.write(buf, at)).bytesWritten;
      };
      let chunk = `${JSON.stringify({ ...header, format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, records: changes.length })}\n`;
      for (const c of changes) {
        chunk += `${JSON.stringify(c)}\n`;
        if (chunk.length >= CHUNK) {
          await put(chunk);
          chunk = '';
        }
      }
      await put(chunk);
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
      if (e.code !== 'ENOENT') throw new StoreError(this.tempPath, `cannot remove a leftover temp file (${e.code}); remove it by hand`);
    });
  }
}
