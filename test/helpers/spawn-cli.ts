// The BUILT CLI (npm test builds first), spawned as a user runs it.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Test } from 'tap';
import { ROOT } from '../../src/kernel/paths.js';

export const CLI = join(ROOT, 'dist/src/cli.js');
export const LISTENING = /^wallet-sim (?:hosted sandbox )?listening on (http:\/\/127\.0\.0\.1:(\d+)) /;
/** Generous: a loaded CI machine (two test files at once, each starting processes) may be slow to boot node. */
export const BOOT_MS = 60_000;

/** The parent's env without WALLET_SIM_* (so a developer's shell cannot change the tests). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WALLET_SIM_')));
  return { ...env, ...extra };
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function collect(child: ChildProcess): { stdout: () => string; stderr: () => string; exited: Promise<Ran> } {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const exited = new Promise<Ran>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * Runs a command that ends by itself. One that has not ended after BOOT_MS is killed and the call
 * throws: a test must not pass on a command that only ended because it was killed (a `start` that
 * listens until then costs a minute and proves nothing).
 */
export async function run(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, BOOT_MS);
  const ran = await collect(child).exited;
  clearTimeout(timer);
  if (killed) throw new Error(`wallet-sim ${args.join(' ')} had not ended after ${BOOT_MS} ms; killed. stderr: ${ran.stderr}`);
  return ran;
}

/**
 * Runs independent commands that end by themselves side by side, `jobs` at a time (each is a node
 * start, a second or more of CPU: two at once use the cores without starving the rest).
 * The results in the order of `commands`.
 */
export async function runAll(commands: string[][], env: Record<string, string> = {}, jobs = 2): Promise<Ran[]> {
  const results: Ran[] = new Array(commands.length);
  let next = 0;
  const worker = async () => {
    while (next < commands.length) {
      const i = next++;
      results[i] = await run(commands[i]!, env);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, commands.length) }, worker));
  return results;
}

export interface Started {
  url: string;
  port: number;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Ran>;
  stop: () => Promise<Ran>;
}

/** Starts `start`, resolves once it printed its URL; rejects if it exits first. */
export async function start(tt: Test, args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [CLI, 'start', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const io = collect(child);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), BOOT_MS);
    const ran = await io.exited;
    clearTimeout(timer);
    return ran;
  };
  tt.teardown(async () => {
    await stop();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within ${BOOT_MS} ms; stderr: ${io.stderr()}`)), BOOT_MS);
    child.stdout!.on('data', () => {
      const line = io
        .stdout()
        .split('\n')
        .find((l) => LISTENING.test(l));
      if (line) {
        clearTimeout(timer);
        resolve(LISTENING.exec(line)![1]!);
      }
    });
    void io.exited.then((r) => {
      clearTimeout(timer);
      reject(new Error(`exited ${r.code} before listening: ${r.stderr}`));
    });
  });
  return { url, port: Number(new URL(url).port), child, ...io, stop };
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
