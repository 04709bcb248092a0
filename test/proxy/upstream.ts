// Proxy-mode tests' parts: the upstream is wallet-sim itself in another process (the CLI, no
// --upstream: a correct wallet), the proxy a wallet-sim in this process with `upstream` set.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { buildTestApp, HEADERS, listen, TEST_SCENARIO } from '../helpers/app.js';
import { start } from '../helpers/spawn-cli.js';
import { tempDir } from '../helpers/temp.js';

/** A scenario file in a fresh temporary directory. */
export function scenarioFile(doc: Scenario): string {
  const file = join(tempDir('wallet-sim-proxy-'), 'scenario.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** The upstream's scenario: TEST_SCENARIO's credentials, USD players auto-created with 1000, no rules. */
export const UPSTREAM_SCENARIO: Scenario = { ...TEST_SCENARIO, name: 'upstream', players: [], rules: [] };

export interface Upstream {
  base: string;
  url: string;
  get(path: string): Promise<any>;
}

/** wallet-sim in another process, as an operator's wallet (stopped when the test ends). */
export async function startUpstream(t: Test, doc: Scenario = UPSTREAM_SCENARIO, args: string[] = []): Promise<Upstream> {
  const started = await start(t, ['--port', '0', '--log-level', 'warn', '--scenario', scenarioFile(doc), ...args]);
  return { base: started.url, url: `${started.url}/callback`, get: (path) => getJson(started.url, path) };
}

export async function getJson(base: string, path: string): Promise<any> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** wallet-sim in this process in front of `upstream` (closed when the test ends). */
export async function startProxy(t: Test, doc: Partial<Scenario>, upstream: string, timeoutMs = 30_000) {
  const built = await buildTestApp({ ...TEST_SCENARIO, players: [], ...doc }, { upstream: { url: upstream, timeoutMs } });
  t.teardown(() => built.app.close());
  const base = await listen(built.app);
  return { ...built, base, url: `${base}/callback` };
}

/** A wallet slow to answer one player's first bet (1.5 s), behind a proxy whose provider times out at 1 s. */
export const SLOW_FIRST_BET: Scenario = {
  ...UPSTREAM_SCENARIO,
  rules: [{ name: 'slow-first', when: { event_type: 'bet', user_id: 'slow' }, then: { delay_ms: 1500 }, times: 1 }],
};
export const SLOW_FIRST_GRADING = { client_timeout_s: 1, min_retry_gap_ms: 200, retry_window_s: 5, round_max_age_s: 60 };

/** Posts a callback; its reply's body, or undefined when it did not come within `timeoutMs`. */
export function sendCallback(url: string, body: object, timeoutMs = 5000): Promise<{ code: string } | undefined> {
  return fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) })
    .then((r) => r.json() as Promise<{ code: string }>)
    .catch(() => undefined);
}

/**
 * Once the slow first attempt is answered too (1.5 s) and graded: the wallet's lateness is the
 * report's only failure, and no provider check reads a negative gap (a resend graded as sent before
 * its first attempt).
 */
export async function onlyTheWalletLate(t: Test, base: string): Promise<void> {
  interface Check {
    id: string;
    side: string;
    status: string;
    violations: { message: string }[];
  }
  let checks: Check[] = [];
  for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
    checks = (await getJson(base, '/admin/report')).checks as Check[];
    if (checks.find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')?.status === 'fail') break;
  }
  const failed = checks.filter((c) => c.status === 'fail');
  t.same(
    failed.map((c) => [c.side, c.id]),
    [['wallet', 'WALLET_ANSWERS_IN_TIME']],
    `only the wallet's lateness: ${JSON.stringify(failed.map((c) => c.violations[0]?.message))}`,
  );
  for (const id of ['NO_PREMATURE_RETRY', 'RETRY_BACKOFF', 'LOST_REPLY_RETRIED'])
    t.notMatch(JSON.stringify(checks.find((c) => c.id === id)), /-\d+ ms/, `${id}: no negative gap`);
}
