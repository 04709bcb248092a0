// Proxy-mode tests' parts: the upstream is wallet-sim itself in another process (the CLI, no
// --upstream: a correct wallet), the proxy a wallet-sim in this process with `upstream` set.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { buildTestApp, listen, TEST_SCENARIO } from '../helpers/app.js';
import { start } from '../helpers/spawn-cli.js';

/** A scenario file in a fresh temporary directory. */
export function scenarioFile(doc: Scenario): string {
  const file = join(mkdtempSync(join(tmpdir(), 'wallet-sim-proxy-')), 'scenario.json');
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
