import { accessSync, constants, existsSync, mkdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
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
    // A file system may take no new directory however writable it says it is (/proc): the first
    // missing one is made and removed again, so that this is known before the work.
    const first = exists ? undefined : missingDirectories(dirname(resolve(path)))[0];
    if (first !== undefined) {
      mkdirSync(first);
      rmdirSync(first);
    }
  } catch (e) {
    throw new OutputFileError(refusal(path, e, flag));
  }
}

/** Why `path` cannot be written: a directory its file system would not create is named as such. */
export function refusal(path: string, e: unknown, flag: string, what: 'file' | 'directory' = 'file'): string {
  const err = e as NodeJS.ErrnoException;
  // ENOENT creating a directory whose parent exists: a file system that takes no new directory (/proc).
  if (err.code === 'ENOENT' && err.syscall === 'mkdir' && err.path !== undefined && existsSync(dirname(err.path)))
    return `cannot create the directory ${err.path} (ENOENT: ${dirname(err.path)} takes no new directory); choose a ${what === 'file' ? 'file in a directory' : 'directory'} you can write to with ${flag}`;
  return cannotWrite(path, codeOf(e), flag, what);
}

/** The directories missing on the way to `dir`, outermost first. */
function missingDirectories(dir: string): string[] {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
  return missing;
}

/**
 * Creates `dir` and its missing parents one at a time: Node 20's mkdirSync({ recursive: true })
 * loops for ever on a directory the file system will not create (ENOENT under /proc). Throws the
 * first failure, with the directory it failed on as `path`.
 */
export function makeDirectory(dir: string, mode?: number): void {
  for (const d of missingDirectories(dir)) mkdirSync(d, { mode });
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
    checkWritable(path, flag);
    makeDirectory(dirname(resolve(path)));
    writeFileSync(path, text);
  } catch (e) {
    if (e instanceof OutputFileError) throw e;
    throw new OutputFileError(refusal(path, e, flag));
  }
}
