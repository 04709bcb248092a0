import type { FileHandle } from 'node:fs/promises';

/**
 * The longest line the store reads (a snapshot record or a log group). Real lines are far
 * shorter (bets per round are bounded); a longer one is a damaged file, and reading it whole
 * would only trade an error for an out-of-memory crash.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface Line {
  /** 1-based line number. */
  no: number;
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just after the line (and its "\n"). */
  end: number;
  /** False for a last line without its "\n". */
  complete: boolean;
}

/** A line over MAX_LINE_BYTES: `no` and `start` say where it begins. */
export class LineTooLong extends Error {
  constructor(
    readonly no: number,
    readonly start: number,
    readonly max: number,
  ) {
    super(`line ${no} is longer than ${max} bytes`);
  }
}

/**
 * The lines of a file, read as a stream: only one line is ever held as a string, so a file's
 * size is bounded by the disk, not by V8's string limit (~512 MB).
 */
export async function* readLines(fh: FileHandle, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let start = 0;
  let no = 0;
  for await (const chunk of fh.createReadStream({ autoClose: false, start: 0, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      const piece = chunk.subarray(at, nl === -1 ? chunk.length : nl);
      if (partBytes + piece.length > maxLineBytes) throw new LineTooLong(no + 1, start, maxLineBytes);
      if (nl === -1) {
        parts.push(piece);
        partBytes += piece.length;
        break;
      }
      const bytes = parts.length ? Buffer.concat([...parts, piece]) : piece;
      const end = start + bytes.length + 1;
      yield { no: ++no, text: bytes.toString('utf8'), start, end, complete: true };
      start = end;
      parts = [];
      partBytes = 0;
      at = nl + 1;
    }
  }
  if (partBytes) yield { no: ++no, text: Buffer.concat(parts).toString('utf8'), start, end: start + partBytes, complete: false };
}
