import { open, readFile, unlink, writeFile } from 'node:fs/promises';
import { StoreError } from './store-error.js';

/**
 * `<data>.lock` holds the pid of the process that owns the data file: two wallets appending to one
 * log would interleave lines. A lock left by a killed process (its pid is gone) is taken over, so a
 * restart after kill -9 needs no cleanup.
 */
export async function acquireLock(data: string): Promise<() => Promise<void>> {
  const path = `${data}.lock`;
  try {
    const fh = await open(path, 'wx');
    await fh.writeFile(`${process.pid}\n`);
    await fh.close();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code !== 'EEXIST') throw new StoreError(path, `cannot create the lock file (${err.code})`);
    const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
      throw new StoreError(data, `is in use by process ${owner} (lock ${path}); stop that process or use another --data`);
    }
    await writeFile(path, `${process.pid}\n`);
  }
  return () => unlink(path).catch(() => undefined);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
