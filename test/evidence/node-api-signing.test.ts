// startSimulator({ signingKey }) (issue 34): a path, PEM text or a KeyObject signs reports; a wrong
// key rejects with a StartFailure and nothing listens.
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSimulator, StartFailure } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-api-keys-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const file = join(dir, 'wallet-sim-signing.pem');
writeFileSync(file, pem, { mode: 0o600 });
const keyid = createHash('sha256')
  .update(publicKey.export({ type: 'spki', format: 'der' }))
  .digest('hex');

t.test('a path, PEM text or a KeyObject: signedReport() verifies with the public key', async (t) => {
  for (const [name, signingKey] of [
    ['path', file],
    ['PEM text', pem],
    ['KeyObject', privateKey],
  ] as const) {
    const sim = await startSimulator({ signingKey });
    t.teardown(() => sim.close());
    const { envelope, report } = await sim.signedReport();
    const payload = Buffer.from(envelope.payload, 'base64');
    const pae = Buffer.concat([Buffer.from(`DSSEv1 28 application/vnd.in-toto+json ${payload.length} `), payload]);
    t.equal(envelope.signatures[0].keyid, keyid, `${name}: the keyid`);
    t.ok(verify(null, pae, publicKey, Buffer.from(envelope.signatures[0].sig, 'base64')), `${name}: the signature verifies`);
    t.equal(JSON.parse(payload.toString()).subject[0].digest.sha256, createHash('sha256').update(report).digest('hex'));
    t.equal(JSON.parse(report).session.id, (await sim.report()).session.id, `${name}: the report of the session`);
  }
});

t.test('without a key signedReport() rejects saying how to enable it; a wrong key starts nothing', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  // Named as this caller spelled it: the signingKey option, no flag and no environment variable.
  await t.rejects(sim.signedReport(), /this wallet-sim holds no signing key.*start it with the `signingKey` option/);
  await t.rejects(sim.signedReport(), { message: /^(?![\s\S]*(--signing-key|WALLET_SIM_|\?signed=true))/ });
  await t.rejects(sim.signedReport(), /or call report\(\) for the unsigned report$/);
  const cases: [string, unknown, RegExp][] = [
    ['missing file', join(dir, 'none.pem'), /the `signingKey` option .*none\.pem: no such file; create a key pair with `wallet-sim keygen/],
    ['public key', createPublicKey(privateKey), /the KeyObject given as signingKey is a public key/],
    ['public PEM', publicKey.export({ type: 'spki', format: 'pem' }), /the PEM text given to the `signingKey` option is a public key/],
    ['a number', 5, /signingKey is a number, not a key: give the path of the Ed25519 private key file, its PEM text, or a KeyObject/],
    ['a Buffer', Buffer.from(pem), /signingKey is a Buffer, not a key: .*its PEM text \(buf\.toString\(\)\)/],
  ];
  for (const [name, signingKey, message] of cases) {
    const started = startSimulator({ signingKey: signingKey as string });
    await t.rejects(started, StartFailure, `${name}: a StartFailure`);
    await t.rejects(started, { message }, name);
  }
});
