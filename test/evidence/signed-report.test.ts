// GET /admin/report?signed=true (issue 34): the DSSE envelope of an in-toto test-result statement,
// checked here by a verification written from the specifications (PAE by hand, crypto.verify),
// not with the product's own code.
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import t from 'tap';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { testResults } from '../../src/evidence/statement.js';
import type { Report, SignedReport } from '../../src/protocol/types.generated.js';
import { validator } from '../../src/protocol/schemas.js';
import { bet, buildTestApp, login, result, send } from '../helpers/app.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const signer = loadSigner(privateKey);

/** Sorted keys, no whitespace: RFC 8785 for the plain JSON a scenario is. */
const canonical = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`;
const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

/** DSSE verification as its specification writes it, independent of src/evidence. */
function verifyByHand(signed: SignedReport, key: KeyObject) {
  const { payloadType, payload, signatures } = signed.envelope;
  const body = Buffer.from(payload, 'base64');
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${body.length} `, 'utf8'), body]);
  const keyid = sha256(key.export({ type: 'spki', format: 'der' }));
  const valid = signatures.some((s) => s.keyid === keyid && verify(null, pae, key, Buffer.from(s.sig, 'base64')));
  return { valid, keyid, statement: JSON.parse(body.toString('utf8')) };
}

async function signedApp() {
  const built = await buildTestApp({}, { signer });
  t.teardown(() => built.app.close());
  const get = async (url: string) => {
    const res = await built.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() };
  };
  return { ...built, get };
}

t.test('no key loaded: 404 saying how to enable signing; the unsigned report is unchanged', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/admin/report?signed=true' });
  t.equal(res.statusCode, 404);
  t.equal(res.json().error, 'SIGNING_NOT_ENABLED');
  t.match(res.json().message, /--signing-key/);
  t.match(res.json().message, /WALLET_SIM_SIGNING_KEY/);
  t.match(res.json().message, /wallet-sim keygen --out/);
  for (const url of ['/admin/report', '/admin/report?signed=false']) {
    const plain = await app.inject({ method: 'GET', url });
    t.equal(plain.statusCode, 200, url);
    t.ok(Array.isArray(plain.json().checks), `${url}: the report`);
  }
  const bad = await app.inject({ method: 'GET', url: '/admin/report?signed=yes' });
  t.equal(bad.statusCode, 400, 'signed takes true or false');
  t.equal(bad.json().error, 'BAD_REQUEST');
});

t.test('the envelope verifies by hand; the statement describes the report served beside it', async (t) => {
  const { app, sim, get } = await signedApp();
  t.equal((await send(app, login('player-1'))).body.code, 'R0');
  const { status, body } = await get('/admin/report?signed=true');
  t.equal(status, 200);
  const signed = body as SignedReport;
  t.ok(validator('SignedReport')(signed), 'a SignedReport by its schema');
  t.same(Object.keys(signed.envelope).sort(), ['payload', 'payloadType', 'signatures']);
  t.equal(signed.envelope.payloadType, 'application/vnd.in-toto+json');

  const { valid, keyid, statement } = verifyByHand(signed, publicKey);
  t.ok(valid, 'Ed25519 over PAE(payloadType, payload), with the keyid of the public key');
  t.equal(signed.envelope.signatures[0]!.keyid, keyid, 'keyid = hex sha256 of the SPKI DER');
  t.ok(validator('ReportStatement')(statement), 'a ReportStatement by its schema');
  t.equal(statement._type, 'https://in-toto.io/Statement/v1');
  t.equal(statement.predicateType, 'https://in-toto.io/attestation/test-result/v0.1');

  const report = JSON.parse(signed.report) as Report;
  t.ok(validator('Report')(report), 'the report beside it is a Report');
  t.same(statement.subject, [
    {
      name: 'report.json',
      digest: { sha256: sha256(signed.report) },
      mediaType: 'application/json',
      annotations: {
        session_id: report.session.id,
        seed: report.session.seed,
        started_at: report.session.started_at,
        ended_at: report.generated_at,
        pending_checks: report.checks.filter((c) => c.status === 'pending').map((c) => c.id),
      },
    },
  ]);
  // The scenario's digest leaves out its seed (drawn anew on every start unless given): the seed is the annotation above.
  const { seed, ...scenario } = (await get('/admin/scenario')).body;
  t.equal(seed, report.session.seed, 'the scenario served holds the seed the annotation names');
  const version = (
    JSON.parse((await import('node:fs')).readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
  t.same(statement.predicate.configuration, [
    { name: report.scenario, digest: { sha256: sha256(canonical(scenario)) }, mediaType: 'application/json' },
    { name: 'wallet-sim', uri: `pkg:npm/wallet-sim@${version}`, annotations: { version } },
  ]);
  t.equal(report.scenario, sim.scenario.source.name);

  const forged = structuredClone(statement);
  forged.predicate.result = 'FAILED';
  const edited = { ...signed, envelope: { ...signed.envelope, payload: Buffer.from(JSON.stringify(forged)).toString('base64') } };
  t.notOk(verifyByHand(edited, publicKey).valid, 'an edited payload does not verify');
  const other = generateKeyPairSync('ed25519').publicKey;
  t.notOk(verifyByHand(signed, other).valid, 'nor with another public key');
});

t.test('the scenario digest is the same on every start: the random seed is left out of it', async (t) => {
  const digests: string[] = [];
  const seeds: number[] = [];
  for (const seed of [1, 2]) {
    const built = await buildTestApp({}, { signer, seed });
    t.teardown(() => built.app.close());
    const body = (await built.app.inject({ method: 'GET', url: '/admin/report?signed=true' })).json() as SignedReport;
    const { valid, statement } = verifyByHand(body, publicKey);
    t.ok(valid);
    digests.push(statement.predicate.configuration[0].digest.sha256);
    seeds.push(statement.subject[0].annotations.seed);
  }
  t.same(seeds, [1, 2], 'each start names its own seed');
  t.equal(digests[0], digests[1], 'one scenario, one digest');
});

t.test("the predicate is the checks' verdict: failed, warned, passed test ids from the report", async (t) => {
  const { app, get } = await signedApp();
  // A bet before any login (a warning check fails), then its round settled twice (an error check fails).
  const placed = bet('player-1', 'G1', [['1', 'P', 1000]]);
  t.equal((await send(app, placed)).body.code, 'R0');
  t.equal((await send(app, result('player-1', 'G1', [['1', 'P', 1000, 1000]]))).body.code, 'R0');
  await send(app, result('player-1', 'G1', [['1', 'P', 1000, 1000]]));
  const signed = (await get('/admin/report?signed=true')).body as SignedReport;
  const report = JSON.parse(signed.report) as Report;
  const { statement } = verifyByHand(signed, publicKey);
  const ids = (keep: (c: Report['checks'][number]) => boolean) => report.checks.filter(keep).map((c) => c.id);
  const failed = ids((c) => c.status === 'fail' && c.severity === 'error');
  const warned = ids((c) => (c.status === 'fail' && c.severity === 'warning') || c.status === 'pending');
  t.ok(failed.length, `an error check fails (${failed.join(', ')})`);
  t.ok(ids((c) => c.status === 'fail' && c.severity === 'warning').length, 'a warning check fails');
  t.same(statement.predicate.failedTests, failed);
  t.same(statement.predicate.warnedTests, warned);
  t.same(
    statement.predicate.passedTests,
    ids((c) => c.status === 'pass'),
  );
  t.equal(statement.predicate.result, 'FAILED');
});

t.test('result: FAILED, WARNED or PASSED from any checks, whatever their side (a table)', async (t) => {
  type C = { id: string; severity: 'error' | 'warning'; status: 'pass' | 'fail' | 'pending' | 'not_exercised' };
  const c = (id: string, severity: C['severity'], status: C['status']): C => ({ id, severity, status });
  const cases: [string, C[], string, string[], string[], string[]][] = [
    ['nothing exercised', [c('A', 'error', 'not_exercised')], 'PASSED', [], [], []],
    ['all pass', [c('A', 'error', 'pass'), c('B', 'warning', 'pass')], 'PASSED', ['A', 'B'], [], []],
    ['a warning fails', [c('A', 'error', 'pass'), c('B', 'warning', 'fail')], 'WARNED', ['A'], ['B'], []],
    ['a window still open', [c('A', 'error', 'pending'), c('B', 'warning', 'pass')], 'WARNED', ['B'], ['A'], []],
    ['an error fails', [c('A', 'error', 'fail'), c('B', 'warning', 'fail')], 'FAILED', [], ['B'], ['A']],
    [
      'a wallet-side check (proxy mode) counts like any other',
      [c('LOST_REPLY_RETRIED', 'error', 'pass'), c('WALLET_IDEMPOTENT', 'error', 'fail'), c('WALLET_REFUSES_INVALID', 'warning', 'fail')],
      'FAILED',
      ['LOST_REPLY_RETRIED'],
      ['WALLET_REFUSES_INVALID'],
      ['WALLET_IDEMPOTENT'],
    ],
  ];
  for (const [name, checks, verdict, passed, warned, failed] of cases)
    t.same(
      testResults(checks as never),
      {
        result: verdict,
        passedTests: passed,
        warnedTests: warned,
        failedTests: failed,
        // The pending ones of the warned, named apart (the subject's pending_checks).
        pendingChecks: checks.filter((c) => c.status === 'pending').map((c) => c.id),
      },
      name,
    );
});

t.test('?user_id= signs the report of that player, named in the annotations', async (t) => {
  const { app, get } = await signedApp();
  await send(app, login('player-1'));
  const signed = (await get('/admin/report?signed=true&user_id=player-1')).body as SignedReport;
  const { valid, statement } = verifyByHand(signed, publicKey);
  t.ok(valid);
  t.equal(JSON.parse(signed.report).user_id, 'player-1');
  t.equal(statement.subject[0].annotations.user_id, 'player-1');
});

t.test('reset: the next signed report names the new session', async (t) => {
  const { app, get } = await signedApp();
  const before = verifyByHand((await get('/admin/report?signed=true')).body as SignedReport, publicKey).statement;
  t.equal((await app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200);
  const after = verifyByHand((await get('/admin/report?signed=true')).body as SignedReport, publicKey).statement;
  t.not(after.subject[0].annotations.session_id, before.subject[0].annotations.session_id, 'a new session id');
  t.not(after.subject[0].digest.sha256, before.subject[0].digest.sha256, 'another report');
});

t.test('the key is never in the served document, the scenario or an error', async (t) => {
  const { app, get } = await signedApp();
  const secrets = [privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'), privateKey.export({ format: 'jwk' }).d!];
  const texts = [
    JSON.stringify((await get('/admin/report?signed=true')).body),
    JSON.stringify((await get('/admin/scenario')).body),
    (await app.inject({ method: 'GET', url: '/openapi.json' })).body,
    (await app.inject({ method: 'GET', url: '/health' })).body,
    JSON.stringify(signer),
    (await import('node:util')).inspect(signer, { depth: 10, showHidden: true }),
  ];
  for (const text of texts) for (const secret of secrets) t.notOk(text.includes(secret), `no key in ${text.slice(0, 40)}…`);
  t.equal(
    createPublicKey(signer.publicKeyPem()).export({ type: 'spki', format: 'der' }).toString('hex'),
    publicKey.export({ type: 'spki', format: 'der' }).toString('hex'),
  );
});
