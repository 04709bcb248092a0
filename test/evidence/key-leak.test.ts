// The signing key never leaves the process (issue 34): a whole session at log level trace, and
// every output of it (stdout, stderr, every admin route, the journal, the report, the signed
// report and its files, the event stream) searched for the key in every form it could take.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bet, HEADERS, login, post, result } from '../helpers/app.js';
import { eventually, run, start } from '../helpers/spawn-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-leak-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const ROUTES = [
  '/admin/players',
  '/admin/players/player-1',
  '/admin/journal',
  '/admin/ledger',
  '/admin/ledger?format=csv',
  '/admin/scenario',
  '/admin/scenario/rules',
  '/admin/scenarios',
  '/admin/report',
  '/admin/report?user_id=player-1',
  '/admin/report?signed=true',
  '/admin/report?signed=true&user_id=player-1',
  '/admin/report?signed=maybe',
  '/admin/nothing-here',
  '/health',
  '/openapi.json',
  '/docs/json',
];

/** The key in every encoding it could leak in: PEM lines, the DER, the raw seed (base64, base64url, hex). */
function secretsOf(pem: string): string[] {
  const lines = pem.split('\n').filter((l) => l && !l.startsWith('-----'));
  const der = Buffer.from(lines.join(''), 'base64');
  const seed = der.subarray(der.length - 32); // PKCS#8 Ed25519: the 32-byte private key ends the DER
  return [
    ...lines.map((l) => l.slice(0, 40)),
    lines.join(''),
    seed.toString('base64').replace(/=+$/, ''),
    seed.toString('base64url'),
    seed.toString('hex'),
  ];
}

async function session(t: Test, args: string[], env: Record<string, string>, pem: string) {
  const sim = await start(t, ['--port', '0', '--log-level', 'trace', '--log-format', 'json', ...args], env);
  const outputs: [string, string][] = [];

  // The live stream, with grading events, read while the callbacks come.
  const abort = new AbortController();
  const stream = await fetch(`${sim.url}/admin/events?grading=true`, { signal: abort.signal });
  let streamed = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream.body!) streamed += decoder.decode(chunk, { stream: true });
  })().catch(() => undefined);

  const cb = `${sim.url}/callback`;
  await post(cb, login('player-1'), HEADERS);
  await post(cb, bet('player-1', 'G1', [['1', 'P', 1000]]), HEADERS);
  await post(cb, result('player-1', 'G1', [['1', 'P', 1000, 1000]]), HEADERS);
  await post(cb, '{"not": "a callback"', HEADERS);
  await post(cb, login('player-1'), { ...HEADERS, 'api-key': 'wrong' });
  t.ok(await eventually(async () => (streamed.match(/^data: \{"id"/gm) ?? []).length >= 5), 'the stream carried the callbacks');

  for (const route of ROUTES) {
    const res = await fetch(`${sim.url}${route}`);
    outputs.push([`GET ${route} (${res.status})`, await res.text()]);
  }
  const signed = join(dir, `${args.length ? 'file' : 'env'}-evidence.json`);
  const cli = await run(['report', '--url', sim.url, '--signed', signed]);
  t.equal(cli.code, 0, cli.stderr);
  outputs.push(['report --signed stdout', cli.stdout], ['report --signed stderr', cli.stderr]);
  outputs.push(
    ['the envelope file', readFileSync(signed, 'utf8')],
    ['the report file', readFileSync(signed.replace(/\.json$/, '.report.json'), 'utf8')],
  );
  const statement = JSON.parse(readFileSync(signed, 'utf8')).payload as string;
  outputs.push(['the statement', Buffer.from(statement, 'base64').toString()]);

  abort.abort();
  await reading;
  outputs.push(['the event stream', streamed]);
  const ran = await sim.stop();
  outputs.push(['stdout', ran.stdout], ['stderr', ran.stderr]);
  t.match(ran.stdout, /"level":30.*"msg":"R0"/, 'the log lines are there (everything at or above trace)');
  t.match(ran.stderr, /signing reports .* keyid is [0-9a-f]{64}/);

  const secrets = secretsOf(pem);
  for (const [name, text] of outputs) {
    const found = secrets.filter((s) => text.includes(s));
    t.same(found, [], `${name}: no trace of the key (${text.length} characters searched)`);
  }
}

const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const keyFile = join(dir, 'wallet-sim-signing.pem');
writeFileSync(keyFile, pem, { mode: 0o600 });

t.test('the key from a file (--signing-key)', (t) => session(t, ['--signing-key', keyFile], {}, pem));
t.test('the key as PEM text in WALLET_SIM_SIGNING_KEY', (t) => session(t, [], { WALLET_SIM_SIGNING_KEY: pem }, pem));
