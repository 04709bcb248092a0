// Signed evidence as a user runs it (issue 34): keygen, start --signing-key, report --signed and
// verify-report, the built CLI over a real socket; every tamper case refused (1), every unreadable
// input named (2).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bet, buildTestApp, HEADERS, listen, login, post, result } from '../helpers/app.js';
import { run, runAll, start } from '../helpers/spawn-cli.js';
import { runHere } from '../helpers/run-here.js';
import { checkStart } from '../helpers/start-options.js';
import { verifyReportCommand } from '../../src/commands/verify-report.js';

// The cases are independent (their own files and simulators): side by side.
t.jobs = 3;

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-signing-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const at = (...p: string[]) => join(dir, ...p);
const PRIVATE = 'wallet-sim-signing.pem';
const PUBLIC = 'wallet-sim-signing.pub.pem';

t.test('keygen: an Ed25519 pair, the private key 0600 PKCS#8, the public SPKI; never overwritten without --force', async (t) => {
  const out = at('keys');
  const made = await run(['keygen', '--out', out]);
  t.equal(made.code, 0, made.stderr);
  const priv = readFileSync(join(out, PRIVATE), 'utf8');
  const pub = readFileSync(join(out, PUBLIC), 'utf8');
  t.match(priv, /^-----BEGIN PRIVATE KEY-----\n/, 'PKCS#8 PEM');
  t.match(pub, /^-----BEGIN PUBLIC KEY-----\n/, 'SPKI PEM');
  t.equal(statSync(join(out, PRIVATE)).mode & 0o777, 0o600, 'the private key: mode 0600');
  t.equal(createPrivateKey(priv).asymmetricKeyType, 'ed25519');
  t.equal(createPublicKey(priv).export({ type: 'spki', format: 'pem' }).toString(), pub, 'the public key is the private key’s');
  const keyid = createHash('sha256')
    .update(createPublicKey(pub).export({ type: 'spki', format: 'der' }))
    .digest('hex');
  t.match(made.stdout, `keyid ${keyid}`, 'prints the keyid');
  t.match(made.stdout, `wallet-sim start --signing-key ${join(out, PRIVATE)}`, 'and how to use it');
  t.notMatch(made.stdout + made.stderr, priv.split('\n')[1]!, 'never prints the key');

  const again = await run(['keygen', '--out', out]);
  t.equal(again.code, 1, 'refused');
  t.match(again.stderr, /already exist; nothing written\. .*pass --force to replace the pair/);
  t.equal(readFileSync(join(out, PRIVATE), 'utf8'), priv, 'the key is untouched');
  t.equal(readFileSync(join(out, PUBLIC), 'utf8'), pub);

  rmSync(join(out, PUBLIC));
  const half = await run(['keygen', '--out', out]);
  t.equal(half.code, 1, 'one file there is enough to refuse');
  t.equal(readFileSync(join(out, PRIVATE), 'utf8'), priv);

  const forced = await run(['keygen', '--out', out, '--force']);
  t.equal(forced.code, 0, forced.stderr);
  t.not(readFileSync(join(out, PRIVATE), 'utf8'), priv, '--force: a new key');
  t.equal(statSync(join(out, PRIVATE)).mode & 0o777, 0o600, 'mode 0600 again');
  t.ok(statSync(join(out, PUBLIC)).isFile());
});

t.test('start with a wrong key: nothing starts, the message names the option and the fix', async (t) => {
  const pair = generateKeyPairSync('ed25519');
  mkdirSync(at('bad'), { recursive: true });
  writeFileSync(at('bad', 'pub.pem'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(at('bad', 'garbage.pem'), 'not a key\n');
  writeFileSync(
    at('bad', 'rsa.pem'),
    generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    [
      'missing file',
      ['--signing-key', at('bad', 'none.pem')],
      {},
      /--signing-key .*none\.pem: no such file; create a key pair with `wallet-sim keygen/,
    ],
    ['a directory', ['--signing-key', at('bad')], {}, /is a directory; give the private key file in it/],
    ['garbage', ['--signing-key', at('bad', 'garbage.pem')], {}, /garbage\.pem is not a PEM private key/],
    ['the public key', ['--signing-key', at('bad', 'pub.pem')], {}, /pub\.pem is a public key; signing needs the private key/],
    ['not Ed25519', ['--signing-key', at('bad', 'rsa.pem')], {}, /rsa\.pem is an rsa key; reports are signed with Ed25519/],
    ['from the environment', [], { WALLET_SIM_SIGNING_KEY: at('bad', 'none.pem') }, /--signing-key .*none\.pem: no such file/],
  ];
  // Each case's message from the checks `start` makes before it opens anything, on the options its
  // parser gives (in this process: a `start` spawned costs a second of CPU); the command itself
  // below for one given as the option and the one from the environment.
  for (const [name, args, env, message] of cases) {
    const refusal = checkStart(['--port', '0', ...args], env);
    t.match(refusal, message, `${name}: the message`);
    t.match(refusal, /nothing started/, `${name}: says nothing started`);
  }
  const spawned = [4, 5];
  // runAll takes one env for all: the env case runs on its own. Without its env it would be a plain
  // `start` that listens until killed.
  const ran = [await run(['start', '--port', '0', ...cases[4]![1]]), await run(['start', '--port', '0'], cases[5]![2])];
  for (const [k, i] of spawned.entries()) {
    const [name, , , message] = cases[i]!;
    t.equal(ran[k]!.code, 1, `${name}: exit 1`);
    t.notMatch(ran[k]!.stdout, /listening/, `${name}: nothing started`);
    t.match(ran[k]!.stderr, message, name);
    t.match(ran[k]!.stderr, /nothing started/, `${name}: says so`);
  }
});

/** Builds an envelope as DSSE specifies it, signed with any key (to forge the "another key" case). */
function envelopeSignedBy(payload: Buffer, key: ReturnType<typeof generateKeyPairSync>['privateKey']) {
  const type = 'application/vnd.in-toto+json';
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} ${type} ${payload.length} `), payload]);
  const keyid = createHash('sha256')
    .update(createPublicKey(key).export({ type: 'spki', format: 'der' }))
    .digest('hex');
  return { payloadType: type, payload: payload.toString('base64'), signatures: [{ keyid, sig: sign(null, pae, key).toString('base64') }] };
}

t.test('report --signed, then verify-report: valid, and every edit refused', async (t) => {
  const keys = at('sandbox');
  t.equal((await run(['keygen', '--out', keys])).code, 0);
  const sim = await start(t, ['--port', '0', '--log-level', 'warn', '--signing-key', join(keys, PRIVATE)]);
  t.match(sim.stderr(), /signing reports \(GET \/admin\/report\?signed=true\) with the Ed25519 key whose keyid is [0-9a-f]{64}/);
  const cb = `${sim.url}/callback`;
  const usd = { currency: 'USD' };
  await post(cb, bet('player-usd', 'G1', [['1', 'P', 10]], usd), HEADERS); // no login first: a warning fails
  await post(cb, result('player-usd', 'G1', [['1', 'P', 10, 10]], usd), HEADERS);
  await post(cb, result('player-usd', 'G1', [['1', 'P', 10, 10]], usd), HEADERS); // settled twice: an error fails
  await post(cb, login('player-1'), HEADERS);

  const envelopeFile = at('evidence.json');
  const reported = await run(['report', '--url', sim.url, '--signed', envelopeFile]);
  t.equal(reported.code, 1, 'the usual exit code: a check fails');
  t.match(reported.stdout, /✗ FAIL\s+ONE_SETTLEMENT_PER_ROUND/, 'the usual checklist');
  t.match(reported.stderr, `wrote the envelope to ${envelopeFile} and the report it covers to ${at('evidence.report.json')}`);
  const envelope = JSON.parse(readFileSync(envelopeFile, 'utf8'));
  const reportText = readFileSync(at('evidence.report.json'), 'utf8');
  t.equal(JSON.parse(reportText).summary.fail, 2, 'the report beside it');
  const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString());
  t.equal(statement.subject[0].digest.sha256, createHash('sha256').update(reportText).digest('hex'), 'the file is the exact bytes signed');

  const pub = join(keys, PUBLIC);
  const other = at('other');
  t.equal((await run(['keygen', '--out', other])).code, 0);

  const ok = await run(['verify-report', envelopeFile, '--public-key', pub]);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /^valid: .*evidence\.json is signed by keyid [0-9a-f]{64}/);
  t.match(ok.stdout, /\nverdict: FAILED\n/);
  t.match(ok.stdout, /\nscenario: default \(sha256 [0-9a-f]{64}\)\n/);
  t.match(ok.stdout, `\nsession: ${JSON.parse(reportText).session.id}, seed `);
  t.match(ok.stdout, /\nfailed checks: ONE_SETTLEMENT_PER_ROUND\n/);
  t.match(ok.stdout, /\nwarned checks: LOGIN_BEFORE_BET\n/);

  // Each tamper case: a copy of the envelope and report, one thing changed.
  const forged = (name: string, env: object, report = reportText) => {
    writeFileSync(at(`${name}.json`), JSON.stringify(env, null, 2));
    writeFileSync(at(`${name}.report.json`), report);
    return at(`${name}.json`);
  };
  const editedStatement = structuredClone(statement);
  editedStatement.predicate.result = 'PASSED';
  editedStatement.predicate.failedTests = [];
  const sig = Buffer.from(envelope.signatures[0].sig, 'base64');
  sig[10]! ^= 1;
  const otherKey = createPrivateKey(readFileSync(join(other, PRIVATE)));
  const tampered: [string, string[], RegExp][] = [
    [
      'report edited',
      [forged('t-report', envelope, reportText.replace('"fail": 2', '"fail": 0'))],
      /NOT VALID: .*t-report\.report\.json is not the report that was signed \(its sha256 is [0-9a-f]{64}, the signature covers/,
    ],
    [
      'payload edited',
      [forged('t-payload', { ...envelope, payload: Buffer.from(JSON.stringify(editedStatement)).toString('base64') })],
      /NOT VALID: the signature does not match the payload .*: the envelope was edited after signing/,
    ],
    [
      'signature edited',
      [forged('t-sig', { ...envelope, signatures: [{ ...envelope.signatures[0], sig: sig.toString('base64') }] })],
      /NOT VALID: the signature does not match the payload/,
    ],
    [
      'payload type edited',
      [forged('t-type', { ...envelope, payloadType: 'application/json' })],
      /NOT VALID: the signature does not match the payload/,
    ],
    [
      'keyid edited',
      [forged('t-keyid', { ...envelope, signatures: [{ ...envelope.signatures[0], keyid: 'ab'.repeat(32) }] })],
      /NOT VALID: the keyid was edited: the signature verifies with .*wallet-sim-signing\.pub\.pem \(keyid [0-9a-f]{64}\), but the envelope names keyid abab.*; the signed payload is intact/,
    ],
    [
      'keyid removed',
      [forged('t-nokeyid', { ...envelope, signatures: [{ sig: envelope.signatures[0].sig }] })],
      /NOT VALID: the keyid was edited: the signature verifies with .* but the envelope names no keyid/,
    ],
    [
      'keyid removed and the signature edited',
      [forged('t-nokeyid-sig', { ...envelope, signatures: [{ sig: sig.toString('base64') }] })],
      /NOT VALID: signed by another key \(the signature names no keyid\), not by .*wallet-sim-signing\.pub\.pem \(keyid [0-9a-f]{64}; the signature does not verify with it\)/,
    ],
    [
      'the edited statement re-signed with another key',
      [forged('t-other', envelopeSignedBy(Buffer.from(JSON.stringify(editedStatement)), otherKey))],
      /NOT VALID: signed by another key .*not by .*wallet-sim-signing\.pub\.pem/,
    ],
    ['the wrong public key', [envelopeFile, '--public-key', join(other, PUBLIC)], /NOT VALID: signed by another key/],
  ];
  const unreadable: [string, string[], RegExp][] = [
    ['missing envelope', [at('none.json')], /cannot verify: cannot read the envelope .*none\.json: no such file/],
    ['not JSON', [at('u-garbage.json')], /cannot verify: .*u-garbage\.json is not JSON/],
    ['the report given as the envelope', [at('evidence.report.json')], /is not a DSSE envelope .*: this looks like the report itself/],
    [
      'missing report',
      [envelopeFile, '--report', at('none.report.json')],
      /cannot read the report .*none\.report\.json: no such file; give the report/,
    ],
    ['bad PEM', [envelopeFile, '--public-key', at('u-garbage.json')], /u-garbage\.json is not a PEM public key/],
    ['missing public key', [envelopeFile, '--public-key', at('none.pem')], /cannot read the public key .*none\.pem: no such file/],
    ['the private key given', [envelopeFile, '--public-key', join(keys, PRIVATE)], /is a private key; verify with the public key/],
  ];
  writeFileSync(at('u-garbage.json'), 'not json at all');
  const withKey = (args: string[]) => (args.includes('--public-key') ? args : [...args, '--public-key', pub]);
  // Every case through verify-report's own action, in this process (a spawn each cost 0.3 s of
  // CPU); the built command end to end for one of each exit code: the report edited (1), not JSON (2).
  const cases = [...tampered, ...unreadable];
  const spawned = [0, tampered.length + 1];
  const results = await runAll(spawned.map((i) => ['verify-report', ...withKey(cases[i]![1])]));
  for (const [k, i] of spawned.entries()) {
    const [name, , message] = cases[i]!;
    const want = i < tampered.length ? 1 : 2;
    t.equal(results[k]!.code, want, `${name}: exit ${want} (spawned)`);
    t.match(results[k]!.stderr, message, `${name} (spawned)`);
    t.equal(results[k]!.stdout, '', `${name}: no verdict printed (spawned)`);
  }
  for (const [i, [name, args, message]] of cases.entries()) {
    const here = await runHere(verifyReportCommand(), withKey(args));
    const want = i < tampered.length ? 1 : 2;
    t.equal(here.code, want, `${name}: exit ${want}`);
    t.match(here.stderr, message, name);
    t.equal(here.stdout, '', `${name}: no verdict printed`);
  }
  const usage = await run(['verify-report', envelopeFile]);
  t.equal(usage.code, 2, 'no --public-key: 2 (cannot verify), not 1');
  t.match(usage.stderr, /--public-key/);

  // The same session after a reset: a new session id in the next signed report.
  t.equal((await fetch(`${sim.url}/admin/reset`, { method: 'POST' })).status, 200);
  const next = await run(['report', '--url', sim.url, '--signed', at('next.json')]);
  t.equal(next.code, 0, next.stderr);
  const nextSession = JSON.parse(readFileSync(at('next.report.json'), 'utf8')).session.id;
  t.not(nextSession, JSON.parse(reportText).session.id, 'a new session');
  const verified = await run(['verify-report', at('next.json'), '--public-key', pub]);
  t.equal(verified.code, 0, verified.stderr);
  t.match(verified.stdout, `session: ${nextSession}, `);
  t.match(verified.stdout, /verdict: PASSED/);
});

t.test('report --signed against a wallet-sim without a key: exit 2 saying how to enable signing', async (t) => {
  // The simulator in this process (what is under test is the report command's reading of its reply).
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const r = await run(['report', '--url', await listen(app), '--signed', at('unsigned.json')]);
  t.equal(r.code, 2);
  t.match(r.stderr, /holds no signing key, so it signs no report: start it with --signing-key <private key file>/);
  t.match(r.stderr, /wallet-sim keygen --out <dir>\), or leave out --signed for the unsigned report\n/, "the command line's own words");
  t.notMatch(r.stderr, /\?signed=true for/, 'not the route query');
  t.notMatch(r.stderr, /is wallet-sim running/, 'no guess after a message that already says what to do');
});
