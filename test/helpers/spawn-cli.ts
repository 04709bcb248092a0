import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';

export const CLI = join(ROOT, 'dist/src/cli.js');

export interface Running { child: ChildProcess; url: string; output: () => string; stop: () => Promise<number | null> }

/** Starts the built CLI (`wallet-sim start --port 0 …`) and waits for its "listening on" line. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<Running> {
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no "listening on" line within ${timeoutMs} ms:\n${output}`)); }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /wallet-sim listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => output, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`exited with ${code} before listening:\n${output}`)); });
  });
}

/** Polls until `check` returns true (generous, for file watchers and child processes). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
