import { accessSync, constants, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/*
 * The files a command writes on request (--junit, --html, --out, --signed): one check and one
 * message for all of them, checked before the work (a probe run is not lost to a typo in a path)
 * and again when written. Missing directories on the way are made (`--junit reports/x.xml` on a
 * fresh checkout), under the nearest one that exists, when that one can be written.
 */

/** A file the user named that cannot be written; the message names it, why, and the option to change. */
export class OutputFileError extends Error {
  override name = 'OutputFileError';
}

const WHY: Record<string, string> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of its path is a file, not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'a read-only file system',
};

/** "cannot write <path> (<code>: why); choose …": keygen's --out <dir> says it of a directory. */
export function cannotWrite(path: string, code: string, flag: string, what: 'file' | 'directory' = 'file'): string {
  const why = WHY[code];
  const choose = what === 'file' ? 'choose a file in a directory you can write to' : 'choose a directory you can write to';
  return `cannot write to ${path} (${code}${why ? `: ${why}` : ''}); ${choose} with ${flag}`;
}

const codeOf = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** Throws an OutputFileError unless `path` can be written now: an existing file writable, or a new one in a writable directory. */
export function checkWritable(path: string, flag: string): void {
  let exists = true;
  try {
    if (statSync(path).isDirectory()) throw new OutputFileError(cannotWrite(path, 'EISDIR', flag));
  } catch (e) {
    if (e instanceof OutputFileError) throw e;
    if (codeOf(e) !== 'ENOENT') throw new OutputFileError(cannotWrite(path, codeOf(e), flag));
    exists = false;
  }
  try {
    const where = exists ? path : nearestExisting(dirname(resolve(path)));
    if (!exists && !statSync(where).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
    accessSync(where, constants.W_OK);
  } catch (e) {
    throw new OutputFileError(cannotWrite(path, codeOf(e), flag));
  }
}

/** `dir`, or the nearest of its ancestors that exists (a file too: the caller tells). */
function nearestExisting(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    try {
      statSync(d);
      return d;
    } catch (e) {
      if (codeOf(e) !== 'ENOENT' || dirname(d) === d) return d;
    }
  }
}

/** Writes `text` to the file named with `flag`; a failure is an OutputFileError, never a stack. */
export function writeOutput(path: string, text: string, flag: string): void {
  try {
    // (checked first: the nearest directory that exists is one that can be written, so this cannot loop)
    checkWritable(path, flag);
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeFileSync(path, text);
  } catch (e) {
    if (e instanceof OutputFileError) throw e;
    throw new OutputFileError(cannotWrite(path, codeOf(e), flag));
  }
}
