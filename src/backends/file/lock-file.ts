import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, realpath, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { StoreError } from '../../ledger/store-error.js';

/**
 * `<data>.lock` keeps two wallets from appending to one log (their lines would interleave). It is
 * a directory holding one file, `owner.<token>`, that says who holds it: pid, the process's start
 * time and the boot it belongs to (Linux: /proc), host name and a random token.
 *
 * - Taking it is one rename of a complete lock directory built aside: a rename onto a missing or
 *   empty directory succeeds, onto a held lock (not empty) fails, so of any number of racers
 *   exactly one wins, for a fresh lock and for a takeover alike.
 * - A lock is stale when its process is gone, or its pid now belongs to another process (another
 *   start time or another boot), or it is this very process's but no open store in it holds it
 *   (a store abandoned as kill -9 would). One this process holds is live: two simulators in one
 *   process on one data file would interleave their logs just as two processes would.
 *   A stale lock is taken over by deleting its owner file by name (`owner.<token>`): a racer that
 *   judged the same lock stale can only delete that file, never the lock a faster racer put in
 *   its place.
 * - A lock file of an earlier wallet-sim (a plain file holding a pid) is stale when that pid is
 *   gone or its process started after the file was written.
 */
/**
 * The data file itself, through any symbolic link to it or to its folder: one lock and one set of
 * logs per file, whatever name a process was given for it (a link beside it would otherwise be a
 * second, empty wallet on the same file).
 */
export async function realDataPath(path: string): Promise<string> {
  const given = resolve(path);
  return realpath(given).catch(() =>
    realpath(dirname(given)).then(
      (dir) => join(dir, basename(given)),
      () => given,
    ),
  );
}

export async function acquireLock(data: string): Promise<Lock> {
  const path = `${data}.lock`;
  const me: Owner = {
    pid: process.pid,
    start: await processStart(process.pid),
    boot: await bootId(),
    host: hostname(),
    token: randomBytes(8).toString('hex'),
  };
  const mine = join(path, `${OWNER}${me.token}`);
  const aside = `${path}.${me.token}.tmp`;
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await mkdir(aside);
      await writeFile(join(aside, `${OWNER}${me.token}`), `${JSON.stringify(me)}\n`);
      await rename(aside, path);
      HELD.add(me.token);
      return {
        release: async () => {
          HELD.delete(me.token);
          await unlink(mine).catch(() => undefined);
          await rmdir(path).catch(() => undefined); // not empty: taken over already, leave it
        },
        abandon: () => HELD.delete(me.token),
      };
    } catch (e) {
      await rm(aside, { recursive: true, force: true }).catch(() => undefined);
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (!['ENOTEMPTY', 'EEXIST', 'ENOTDIR', 'EISDIR'].includes(code)) throw lockNotWritten(path, e as Error);
    }
    await clearIfStale(data, path);
  }
  throw new StoreError(path, 'could not be taken: other processes kept taking it; retry, and run one wallet-sim per --data');
}

/** A lock taken: `release()` lets go of it; `abandon()` leaves it on disk as a kill -9 would (tests). */
export interface Lock {
  release(): Promise<void>;
  abandon(): void;
}

/** The lock at `path` could not be written (not because another process holds it): what to do. */
export function lockNotWritten(path: string, e: Error): StoreError {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const why = NO_ROOM[code] ? `: ${NO_ROOM[code]}` : '; check that the folder of --data is writable';
  return new StoreError(path, `cannot create the lock (${code || e.message})${why}`);
}

/** Why the lock could not be written when the folder is writable but there is no room. */
const NO_ROOM: Record<string, string> = {
  ENOSPC: 'the disk is full; free space on the disk that holds --data',
  EDQUOT: 'the disk quota is used up; free space or raise the quota of the disk that holds --data',
};

const OWNER = 'owner.';
const HELD_KEY = Symbol.for('wallet-sim.held-locks');

/**
 * The tokens of the locks the open stores of this process hold, released on close. One set per
 * process, even if two copies of wallet-sim are loaded in it (a test importing both the package
 * and a checkout): a lock with this pid and a token not in it belongs to a store let go of unclosed.
 */
const HELD: Set<string> = ((globalThis as { [HELD_KEY]?: Set<string> })[HELD_KEY] ??= new Set<string>());

interface Owner {
  pid: number;
  start?: string;
  boot?: string;
  host: string;
  token: string;
}

/** Throws when the lock is held by a live process; removes it when it is stale. */
async function clearIfStale(data: string, path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return; // released meanwhile
  if (!info.isDirectory()) return clearLegacy(data, path, info.mtimeMs);
  const names = await readdir(path).catch(() => [] as string[]);
  if (!names.length) return; // being released or taken over: a rename onto it succeeds
  const name = names.find((n) => n.startsWith(OWNER));
  if (!name || names.length > 1) {
    throw new StoreError(path, `holds unexpected files (${names.join(', ')}); if no wallet-sim uses ${data}, remove ${path}`);
  }
  let owner: Owner;
  try {
    owner = JSON.parse(await readFile(join(path, name), 'utf8')) as Owner;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // taken over or released meanwhile
    throw new StoreError(join(path, name), `is not a lock wallet-sim wrote; if no wallet-sim uses ${data}, remove ${path}`);
  }
  const why = await staleness(owner);
  if (why === 'here') {
    throw new StoreError(
      data,
      `is in use by this process (pid ${owner.pid}): another simulator in it has it open (lock ${path}); close that one first (sim.close()), or give this one another data directory`,
    );
  }
  if (why === 'live') {
    const started = await processStartMs(owner.pid);
    const since = started ? `, running since ${new Date(started).toISOString()}` : '';
    throw new StoreError(data, `is in use by process ${owner.pid}${since} (lock ${path}); stop that process or use another --data`);
  }
  if (why === 'elsewhere') {
    throw new StoreError(
      data,
      `is locked by process ${owner.pid} on host ${owner.host} (lock ${path}); if no wallet-sim runs there, remove ${path}`,
    );
  }
  // By name: if a faster racer already replaced the lock, this finds nothing to delete.
  await unlink(join(path, name)).catch(() => undefined);
}

async function staleness(owner: Owner): Promise<'live' | 'here' | 'stale' | 'elsewhere'> {
  if (owner.host !== hostname()) return 'elsewhere';
  if (owner.pid === process.pid) return HELD.has(owner.token) ? 'here' : 'stale';
  if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0 || !(await alive(owner.pid))) return 'stale';
  const boot = await bootId();
  if (owner.boot && boot && owner.boot !== boot) return 'stale'; // written before a reboot: the pid is someone else's now
  const start = await processStart(owner.pid);
  if (owner.start && start && owner.start !== start) return 'stale'; // the pid was reused
  return 'live';
}

/** A lock file of an earlier wallet-sim: the pid it holds, nothing more. */
async function clearLegacy(data: string, path: string, writtenMs: number): Promise<void> {
  const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
  if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && (await alive(pid))) {
    const started = await processStartMs(pid);
    // A process that started after the lock was written cannot be the one that wrote it.
    if (started === undefined || started <= writtenMs + 1000) {
      throw new StoreError(data, `is in use by process ${pid} (lock ${path}); stop that process or use another --data`);
    }
  }
  // Whoever deletes it, every racer then competes with the same rename onto a missing path.
  await unlink(path).catch(() => undefined);
}

/**
 * Whether the process runs. kill(pid, 0) succeeds for a zombie too (killed, not yet reaped by its
 * parent: in a container without an init process it stays until the container stops), so on
 * Linux its state decides: Z (zombie) or X (dead) holds no files. Elsewhere kill(pid, 0) it is.
 */
async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = await processState(pid);
  return state !== 'Z' && state !== 'X';
}

/** A process's state (/proc/<pid>/stat field 3: R, S, D, Z for a zombie, …); undefined off Linux. */
export async function processState(pid: number): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return text?.slice(text.lastIndexOf(')') + 2).split(' ')[0];
}

/** A process's start time in clock ticks after boot (/proc/<pid>/stat field 22); undefined off Linux. */
export async function processStart(pid: number): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // Field 2 (the command) is in parentheses and may hold spaces: count fields after its ")".
  return text?.slice(text.lastIndexOf(')') + 2).split(' ')[19];
}

async function bootId(): Promise<string | undefined> {
  return (await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined))?.trim();
}

/** When a process started, in ms since the epoch (Linux, USER_HZ = 100); undefined when unknown. */
async function processStartMs(pid: number): Promise<number | undefined> {
  const ticks = Number(await processStart(pid));
  const btime = /^btime (\d+)$/m.exec(await readFile('/proc/stat', 'utf8').catch(() => ''))?.[1];
  if (!Number.isFinite(ticks) || !btime) return undefined;
  return Number(btime) * 1000 + ticks * 10;
}
