import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEFAULT_RETAIN_TRANSACTIONS } from '../src/backends/backend.js';
import { DEFAULT_JOURNAL_BYTES, DEFAULT_JOURNAL_SIZE } from '../src/journal/journal.js';
import type { Route, Target } from './servers.js';
import { BENCH_SCENARIO, HEADERS } from './traffic.js';

/** Tenants a --hosted target holds while one of them is driven (the figure: 1,000). */
export const HOSTED_TENANTS = 1000;

/**
 * --hosted: the same traffic on a tenant's callback path (/t/<id>/callback) of a hosted wallet-sim
 * holding HOSTED_TENANTS tenants, each created with the bench scenario. The tenant limits are the
 * single-tenant defaults (journal, retention) and the callbacks-per-second limit is lifted, so the
 * difference from (b) is what the hosted layer itself costs a callback: finding the tenant, its
 * rate-limit count, its metrics.
 */
export async function hostedTarget(dir: string, wallet: string[], label = '(h)', store = '', tenants = HOSTED_TENANTS): Promise<Target> {
  const tokenFile = join(dir, `host-token${label.replace(/\W/g, '')}`);
  const hostToken = randomBytes(32).toString('base64url');
  await writeFile(tokenFile, hostToken, { mode: 0o600 });
  // `wallet` is a single-tenant command line: its --scenario goes (tenants get theirs from POST /tenants).
  const at = wallet.indexOf('--scenario');
  const command = [...wallet.slice(0, at), ...wallet.slice(at + 2)];
  return {
    name: `${label} wallet-sim --hosted${store}, a tenant's callback, ${tenants.toLocaleString('en')} tenants`,
    command: [
      ...command,
      '--hosted',
      '--host-token-file',
      tokenFile,
      '--max-tenants',
      String(tenants),
      '--tenant-callbacks-per-second',
      '1000000',
      '--tenant-journal-size',
      String(DEFAULT_JOURNAL_SIZE),
      '--tenant-journal-bytes',
      String(DEFAULT_JOURNAL_BYTES),
      '--tenant-retain-transactions',
      String(DEFAULT_RETAIN_TRANSACTIONS),
    ],
    setup: (url) => createTenants(url, hostToken, tenants),
  };
}

/**
 * (bh): the single-tenant server in a process that first created `tenants` tenants in a hosted app
 * beside it (./host-beside.ts, preloaded). A diagnostic of what serving the tenants' creation does
 * to a process; with the callback lane it no longer stands in for a host (docs/hosted-cost.md).
 */
export function besideTarget(wallet: string[], dist: string, label = '(bh)', tenants = HOSTED_TENANTS): Target {
  return {
    name: `${label} memory store, ${tenants.toLocaleString('en')} tenants created in a hosted app beside it`,
    command: wallet,
    env: { NODE_OPTIONS: `--import ${join(dist, 'bench/host-beside.js')}`, BENCH_HOST_BESIDE: String(tenants) },
  };
}

/** Creates the tenants (a few at a time); the route of the last one created is the one driven. */
async function createTenants(url: string, hostToken: string, count: number): Promise<Route> {
  let route: Route | undefined;
  const ids: string[] = [];
  const create = async () => {
    const res = await fetch(`${url}/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hostToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', scenario: BENCH_SCENARIO }),
    });
    if (res.status !== 201) throw new Error(`POST /tenants answered ${res.status}: ${await res.text()}`);
    const t = (await res.json()) as { id: string; credentials: { api_id: string; api_key: string } };
    ids.push(t.id);
    route = {
      path: `/t/${t.id}/callback`,
      headers: { ...HEADERS, 'api-id': t.credentials.api_id, 'api-key': t.credentials.api_key },
    };
  };
  for (let made = 0; made < count; made += 20) await Promise.all(Array.from({ length: Math.min(20, count - made) }, create));
  // (an experiment of bench/paired.ts: the server has created them all, and holds only the driven one)
  if (process.env.BENCH_DROP_OTHERS) {
    const keep = route!.path.split('/')[2];
    for (const id of ids)
      if (id !== keep) await fetch(`${url}/tenants/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${hostToken}` } });
  }
  return route!;
}
