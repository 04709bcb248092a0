// Issue 9 item 8: Stoplight Prism's validating proxy in front of the simulator, as a user runs it
// (`prism proxy <openapi> <url> --errors`), checks every reply against the published document.
// Two proxies: one that also validates requests (the README's callbacks and the admin calls must
// be valid requests), and one with --validate-request false, so that requests the document calls
// invalid (a malformed body, a body over the limit, a bad query) reach the simulator and its
// replies (R3, 413, 400, 415) are checked against what the document says it answers.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../src/app/app.js';
import { DEFAULT_SCENARIO } from '../src/kernel/paths.js';
import { loadScenarioFile } from '../src/core/scenario/scenario.js';
import {} from '../src/core/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { readmeCallbacks } from './helpers/readme.js';
import { loadSigner } from '../src/evidence/signing-key.js';
import { openSimulator } from '../src/app/compose.js';

t.setTimeout(180_000);
const PRISM = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
const LIMIT = 8192;

/** Starts `prism proxy` on a free port of 127.0.0.1; resolves with its URL once it listens. */
async function prism(
  document: string,
  upstream: string,
  extra: string[] = [],
): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const child = spawn(process.execPath, [PRISM, 'proxy', document, upstream, '--errors', '--port', '0', '--host', '127.0.0.1', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start within 90 s:\n${log}`)), 90_000);
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited with ${code}:\n${log}`));
    });
  });
  return { url, child, log: () => log };
}

interface Call {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  code?: string;
}

const NOW = Math.floor(Date.now() / 1000);
const json = { 'content-type': 'application/json' };
const callbackHeaders = (base: string) => ({ ...json, 'api-id': 'sandbox', 'api-key': 'sandbox-key', 'callback-url': `${base}/callback` });
// The README's "One callback of each kind" and its R4 example, as the README writes them.
const [LOGIN, BET, RESULT, , R4] = readmeCallbacks(NOW) as [string, string, string, string, string];
const BAD_TOTALS = `{"transaction_id":"t8","event_type":"bet","timestamp":${NOW},"feedback_data":"x","user_id":"player-1","data":{"currency":"KRW","game_type":"BAC","table_no":"BAC07","game_no":"BAC07-0417","total_bet_amount":3,"bets":[{"bet_index":"1","bet_type":"P","bet_amount":1}]}}`;

async function call(base: string, c: Call): Promise<{ status: number; violations?: string; body: string }> {
  const headers = c.path === '/callback' ? { ...callbackHeaders(base), ...c.headers } : c.headers;
  const res = await fetch(`${base}${c.path}`, { method: c.method, headers, body: c.body });
  return { status: res.status, violations: res.headers.get('sl-violations') ?? undefined, body: await res.text() };
}

t.test('Prism validating proxy: every reply matches the published document', async (t) => {
  const sim = await openSimulator(loadScenarioFile(DEFAULT_SCENARIO), new MemoryBackend());
  // With a signing key, so the signed report (a SignedReport) is checked against the document too.
  const app = await buildApp({ sim, bodyLimit: LIMIT, signer: loadSigner(generateKeyPairSync('ed25519').privateKey) });
  t.teardown(() => app.close());
  const upstream = await app.listen({ host: '127.0.0.1', port: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-prism-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const document = join(dir, 'openapi.json');
  writeFileSync(document, await (await fetch(`${upstream}/openapi.json`)).text()); // what a user downloads

  const [strict, forwarding] = await Promise.all([prism(document, upstream), prism(document, upstream, ['--validate-request', 'false'])]);

  const check = async (base: string, calls: Call[]) => {
    for (const c of calls) {
      const r = await call(base, c);
      t.equal(r.violations, undefined, `${c.name}: no violation`, { violations: r.violations });
      t.equal(r.status, c.status, `${c.name}: HTTP ${c.status}`, { body: r.body });
      if (c.code) t.equal((JSON.parse(r.body) as { code?: string }).code, c.code, `${c.name}: ${c.code}`);
    }
  };

  t.test('valid requests through the request-validating proxy', async () => {
    await check(strict.url, [
      { name: 'README login', method: 'POST', path: '/callback', body: LOGIN, status: 200, code: 'R0' },
      { name: 'README bet', method: 'POST', path: '/callback', body: BET, status: 200, code: 'R0' },
      { name: 'README bet_result', method: 'POST', path: '/callback', body: RESULT, status: 200, code: 'R0' },
      { name: 'README R4', method: 'POST', path: '/callback', body: R4, status: 200, code: 'R4' },
      { name: 'the same bet again: replay', method: 'POST', path: '/callback', body: BET, status: 200, code: 'R0' },
      { name: 'totals that do not add up', method: 'POST', path: '/callback', body: BAD_TOTALS, status: 200, code: 'R3' },
      { name: 'a wrong Api-Key', method: 'POST', path: '/callback', headers: { 'api-key': 'wrong' }, body: LOGIN, status: 200, code: 'R2' },
      {
        name: 'no Callback-URL (optional)',
        method: 'POST',
        path: '/callback',
        headers: { 'callback-url': '' },
        body: LOGIN.replace('"t1"', '"t6"'),
        status: 200,
        code: 'R0',
      },
      { name: 'health', method: 'GET', path: '/health', status: 200 },
      { name: 'players', method: 'GET', path: '/admin/players', status: 200 },
      { name: 'one player', method: 'GET', path: '/admin/players/player-1', status: 200 },
      { name: 'an unknown player', method: 'GET', path: '/admin/players/nobody', status: 404 },
      {
        name: 'set a balance',
        method: 'PUT',
        path: '/admin/players/player-9',
        headers: json,
        body: '{"balance":250,"currency":"USD"}',
        status: 200,
      },
      { name: 'journal', method: 'GET', path: '/admin/journal?user_id=player-1&limit=2', status: 200 },
      {
        name: 'journal, every filter',
        method: 'GET',
        path: '/admin/journal?user_id=player-1&event_type=bet&game_no=G1&table_no=T1&transaction_id=t2&code=R0&replayed=true&rule=r&after=0',
        status: 200,
      },
      { name: 'ledger (JSON)', method: 'GET', path: '/admin/ledger?user_id=player-1', status: 200 },
      { name: 'ledger (CSV)', method: 'GET', path: '/admin/ledger?format=csv', status: 200 },
      { name: 'scenario', method: 'GET', path: '/admin/scenario', status: 200 },
      { name: 'rule counters', method: 'GET', path: '/admin/scenario/rules', status: 200 },
      { name: 'report', method: 'GET', path: '/admin/report?user_id=player-1', status: 200 },
      { name: 'signed report', method: 'GET', path: '/admin/report?signed=true', status: 200 },
      { name: 'clear the journal', method: 'DELETE', path: '/admin/journal', status: 204 },
      { name: 'reset', method: 'POST', path: '/admin/reset', status: 200 },
    ]);
    t.equal(
      ((await (await fetch(`${upstream}/admin/journal`)).json()) as { count: number }).count,
      0,
      'the proxy forwarded the calls (reset emptied the journal)',
    );
  });

  t.test('a malformed callback: the document calls it invalid, and Prism refuses it itself', async () => {
    const r = await call(strict.url, {
      name: 'malformed',
      method: 'POST',
      path: '/callback',
      body: '{"transaction_id":"t7","event_type":"bet",',
      status: 400,
    });
    t.equal(r.status, 400, "Prism's own invalid_json: nothing reached the simulator");
    const wrongType = await call(strict.url, {
      name: 'schema',
      method: 'POST',
      path: '/callback',
      body: BET.replace('"total_bet_amount":15000', '"total_bet_amount":"15000"'),
      status: 422,
    });
    t.equal(wrongType.status, 422, 'a body that breaks the schema is an invalid request per the document');
    t.match(wrongType.body, /"location":\["body","data","total_bet_amount"\]/);
  });

  t.test('requests the document calls invalid, forwarded: the replies are the documented ones', async () => {
    await check(forwarding.url, [
      {
        name: 'a malformed body (text/plain, so Prism forwards it)',
        method: 'POST',
        path: '/callback',
        headers: { 'content-type': 'text/plain' },
        body: '{"transaction_id":"t7","event_type":"bet",',
        status: 200,
        code: 'R3',
      },
      {
        name: 'JSON that breaks the schema',
        method: 'POST',
        path: '/callback',
        body: '{"event_type":"bet","user_id":"player-1"}',
        status: 200,
        code: 'R3',
      },
      {
        name: 'no credentials',
        method: 'POST',
        path: '/callback',
        headers: { 'api-id': '', 'api-key': '' },
        body: LOGIN,
        status: 200,
        code: 'R2',
      },
      { name: 'a callback over the limit', method: 'POST', path: '/callback', body: `{"pad":"${'x'.repeat(LIMIT)}"}`, status: 413 },
      { name: 'limit=abc', method: 'GET', path: '/admin/journal?limit=abc', status: 400 },
      { name: 'replayed=yes', method: 'GET', path: '/admin/journal?replayed=yes', status: 400 },
      { name: 'code=R9', method: 'GET', path: '/admin/journal?code=R9', status: 400 },
      { name: 'format=xml', method: 'GET', path: '/admin/ledger?format=xml', status: 400 },
      { name: 'a negative balance', method: 'PUT', path: '/admin/players/player-1', headers: json, body: '{"balance":-1}', status: 400 },
      { name: 'an invalid scenario', method: 'PUT', path: '/admin/scenario', headers: json, body: '{"name":"x"}', status: 400 },
      {
        name: 'a scenario that is not JSON',
        method: 'PUT',
        path: '/admin/scenario',
        headers: { 'content-type': 'text/csv' },
        body: 'name,x',
        status: 415,
      },
      {
        name: 'an admin body over the limit',
        method: 'PUT',
        path: '/admin/players/player-1',
        headers: json,
        body: `{"balance":1,"pad":"${'x'.repeat(LIMIT)}"}`,
        status: 413,
      },
    ]);
  });
});
