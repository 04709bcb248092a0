import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../src/kernel/paths.js';
import { BOOT_MS, cleanEnv, collect, type Ran } from '../helpers/spawn-cli.js';

/** The built zoo wallet (npm run build compiles test/ too). */
export const ZOO = join(ROOT, 'dist/test/wallets/zoo-wallet.js');
export const ZOO_LISTENING = /^listening on (http:\/\/127\.0\.0\.1:\d+\/\S*)$/m;

export interface SpawnedZoo {
  url: string;
  stop: () => Promise<Ran>;
}

/** Starts the zoo wallet as a real child process with these arguments; resolves once it printed its URL. */
export async function spawnZoo(args: string[]): Promise<SpawnedZoo> {
  const child = spawn(process.execPath, [ZOO, '--port', '0', ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const io = collect(child);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return io.exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`zoo ${args.join(' ')}: no URL within ${BOOT_MS} ms: ${io.stderr()}`)), BOOT_MS);
    child.stdout!.on('data', () => {
      const m = ZOO_LISTENING.exec(io.stdout());
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void io.exited.then((r) => {
      clearTimeout(timer);
      reject(new Error(`zoo ${args.join(' ')} exited ${r.code}: ${r.stderr}`));
    });
  });
  return { url, stop };
}
