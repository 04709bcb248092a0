import { constants } from 'node:fs';
import { type FileHandle, open, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Change } from '../../ledger/change.js';
import { LineTooLong, readLines } from './lines.js';
import { changeProblem } from '../../ledger/records.js';
import { StoreError } from '../../ledger/store-error.js';

/**
 * The append-only change log: `<data>.<seq>.log`, one line per group commit, each line a JSON array
 * of change records. A line is written and fsync'd before any callback in its group is answered,
 * and the next line is written only after that, so a crash can tear at most the last line of the
 * newest log — a line nobody was told about.
 */
export const logPath = (data: string, seq: number) => `${data}.${String(seq).padStart(6, '0')}.log`;

/** The logs beside a data file, by sequence number. */
export async function listLogs(data: string): Promise<{ seq: number; path: string }[]> {
  const dir = dirname(data);
  const prefix = `${basename(data)}.`;
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    throw new StoreError(dir, `cannot list the data file's folder (${e.code})`);
  });
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+\.log$/.test(n.slice(prefix.length)))
    .map((n) => ({ seq: Number(n.slice(prefix.length, -4)), path: join(dir, n) }))
    .sort((a, b) => a.seq - b.seq);
}

export interface ReadLog {
  /** Change groups in order. */
  groups: Change[][];
  /** Bytes of the intact part; a torn last line starts here. */
  validBytes: number;
  /** Bytes after validBytes: the torn last line, when there is one. */
  tornBytes: number;
}

/**
 * Reads one log. A line that does not parse is the torn tail of a crash only when it is the last
 * line of the newest log (`tornAllowed`); anywhere else the file is corrupt and start-up stops.
 */
export async function readLog(path: string, tornAllowed: boolean): Promise<ReadLog> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new StoreError(path, `cannot be read (${(e as NodeJS.ErrnoException).code}); check its permissions`);
  }
  const groups: Change[][] = [];
  let validBytes = 0;
  let size = 0;
  /** A line that is no group; an error unless it turns out to be the very last line. */
  let bad: { no: number; problem: string; torn: boolean; start: number } | undefined;
  let isLast = true;
  try {
    size = (await fh.stat()).size;
    for await (const line of readLines(fh)) {
      if (bad) {
        isLast = false;
        break;
      }
      const problem = line.complete ? groupOrProblem(line.text) : 'has no line end';
      if (typeof problem === 'string') {
        // A crash can only tear the line being written: cut short, or not JSON yet. A whole line
        // that parses but holds bad records was written so, and is an error like any other.
        bad = { no: line.no, problem, torn: !line.complete || problem.startsWith(NOT_JSON), start: line.start };
        continue;
      }
      groups.push(problem);
      validBytes = line.end;
    }
  } catch (e) {
    if (e instanceof LineTooLong)
      throw new StoreError(path, `${e.message}: not a line wallet-sim writes; the file was left untouched: restore it from a backup`);
    throw new StoreError(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    await fh.close();
  }
  if (!bad) return { groups, validBytes, tornBytes: 0 };
  if (isLast && tornAllowed && bad.torn) return { groups, validBytes, tornBytes: size - bad.start };
  const why = !isLast
    ? 'a corrupt line before the end is not a crash tear'
    : !tornAllowed
      ? 'only the newest log may end in a torn line'
      : 'a whole line that parses was written so: it is not a crash tear';
  const fix = bad.torn ? 'restore it from a backup' : 'correct that record or restore the file from a backup';
  throw new StoreError(path, `line ${bad.no} ${bad.problem}: ${why}; the file was left untouched: ${fix}`);
}

const NOT_JSON = 'is not valid JSON';

function groupOrProblem(text: string): Change[] | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return `${NOT_JSON} (${(e as Error).message})`;
  }
  if (!Array.isArray(v)) return 'is not a JSON array of changes';
  for (let i = 0; i < v.length; i++) {
    const problem = changeProblem(v[i]);
    if (problem) return `/${i} ${problem}`;
  }
  return v as Change[];
}

/**
 * On Linux the log is opened with O_DSYNC: a write returns once its bytes (and the file's new size)
 * are on disk, as a write followed by fdatasync would, in one call to the thread pool per group
 * instead of two. Elsewhere a write is followed by fdatasync: on macOS that flushes the drive's own
 * cache too (F_FULLFSYNC), which O_DSYNC does not.
 */
const { O_WRONLY, O_APPEND, O_CREAT, O_DSYNC } = constants;
const APPEND_DSYNC = process.platform === 'linux' && O_DSYNC !== undefined ? O_WRONLY | O_APPEND | O_CREAT | O_DSYNC : undefined;

/** The log being appended to. */
export class LogWriter {
  private constructor(
    readonly path: string,
    readonly seq: number,
    private readonly fh: FileHandle,
    public bytes: number,
  ) {}

  /** Opens for appending; `truncateTo` cuts a torn tail first, so new lines never follow garbage. */
  static async open(path: string, seq: number, truncateTo?: number): Promise<LogWriter> {
    let fh: FileHandle;
    try {
      fh = await open(path, APPEND_DSYNC ?? 'a');
    } catch (e) {
      throw new StoreError(path, `cannot be opened for writing (${(e as NodeJS.ErrnoException).code})`);
    }
    if (truncateTo !== undefined) {
      await fh.truncate(truncateTo);
      await fh.sync();
    }
    const { size } = await fh.stat();
    return new LogWriter(path, seq, fh, size);
  }

  /** Appends one line (its bytes, "\n" included) and waits until it is on disk. */
  async append(buf: Buffer): Promise<void> {
    let at = 0;
    while (at < buf.length) at += (await this.fh.write(buf, at)).bytesWritten;
    if (APPEND_DSYNC === undefined) await this.fh.datasync(); // opened without O_DSYNC
    this.bytes += buf.length;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
