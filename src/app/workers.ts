import cluster, { type Worker } from 'node:cluster';
import { MESSAGES } from '../text/messages.js';

/** What a worker tells the primary once it listens. */
export interface WorkerListening {
  wallet_sim_listening: { url: string; callback: string; scenario: string; seed?: number };
}

const isListening = (m: unknown): m is WorkerListening => typeof m === 'object' && m !== null && 'wallet_sim_listening' in m;

/** In a worker of `--workers`: tells the primary it listens (the primary prints the one start line). */
export function reportListening(url: string, callback: string, scenario: string, seed?: number): void {
  process.send?.({ wallet_sim_listening: { url, callback, scenario, seed } } satisfies WorkerListening);
  // The primary went away (killed): stop serving gracefully rather than run on orphaned.
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/**
 * `start --workers N`: this process forks N workers (node:cluster) that run `start` with the same
 * options and share its port; it prints the one start line once all of them listen, replaces a
 * worker that dies, and on SIGINT/SIGTERM says so once, passes the signal on and exits after the last worker.
 * A worker that fails before listening (Redis unreachable, port in use) stops them all: exit 1.
 */
export function runPrimary(workers: number, store: string, graceMs: number): void {
  const listening = new Set<number>();
  let started = false;
  let stopping = false;

  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (m: unknown) => {
      if (!isListening(m)) return;
      listening.add(worker.id);
      if (!started && listening.size >= workers) {
        started = true;
        const { url, callback, scenario, seed } = m.wallet_sim_listening;
        console.log(MESSAGES.LISTENING(url, callback, scenario, `${store}, ${workers} workers`, seed));
      }
    });
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    const alive = Object.values(cluster.workers ?? {}).filter(Boolean).length;
    if (stopping) {
      if (!alive) process.exit(0);
      return;
    }
    if (!started) {
      console.error(MESSAGES.WORKER_FAILED_TO_START(worker.process.pid ?? 0, code ?? signal));
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      process.exitCode = 1;
      if (!alive) process.exit(1);
      return;
    }
    console.error(MESSAGES.WORKER_REPLACED(worker.process.pid ?? 0, code ?? signal));
    fork();
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      console.error(MESSAGES.STOPPING(signal, graceMs)); // once for all the workers
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    });
  }
  for (let i = 0; i < workers; i++) fork();
}
