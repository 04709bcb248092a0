// The signing key (start --signing-key, the Node API's signingKey): every wrong key is refused with
// a message naming the option and what to do, and never quoting the file's contents.
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadSigner, SigningKeyError } from '../../src/evidence/signing-key.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-keys-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};

const ed = generateKeyPairSync('ed25519');
const pkcs8 = ed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const body = (pem: string) =>
  pem
    .split('\n')
    .filter((l) => l && !l.startsWith('-----'))
    .join('');
const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const encrypted = ed.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString();
const garbagePem = `-----BEGIN PRIVATE KEY-----\nTOPSECRETNOTAKEY${'A'.repeat(40)}\n-----END PRIVATE KEY-----\n`;

t.test('a wrong key: refused, the option named, the fix said, the contents never quoted', async (t) => {
  const cases: [string, string, RegExp][] = [
    [
      'missing file',
      join(dir, 'nope.pem'),
      /--signing-key .*nope\.pem: no such file; create a key pair with `wallet-sim keygen --out <dir>`/,
    ],
    ['a directory', dir, /--signing-key .* is a directory; give the private key file in it \(e\.g\. .*wallet-sim-signing\.pem\)/],
    ['garbage', file('garbage.pem', 'hello TOPSECRET world\n'), /--signing-key .*garbage\.pem is not a PEM private key; create a key pair/],
    ['a garbage PEM', file('garbage2.pem', garbagePem), /is not a PEM private key; create a key pair/],
    [
      'the public key',
      file('pub.pem', ed.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
      /pub\.pem is a public key; signing needs the private key \(wallet-sim-signing\.pem, not the \.pub\.pem/,
    ],
    [
      'an RSA key',
      file('rsa.pem', rsa),
      /rsa\.pem is an rsa key; reports are signed with Ed25519: create a key pair with `wallet-sim keygen/,
    ],
    ['an EC key', file('ec.pem', ec), /ec\.pem is an ec key; reports are signed with Ed25519/],
    ['an encrypted key', file('enc.pem', encrypted), /enc\.pem is encrypted; give it unencrypted/],
    ['garbage PEM text given inline', garbagePem, /^the PEM text given to --signing-key is not a PEM private key/],
  ];
  for (const [name, given, message] of cases) {
    let error: unknown;
    try {
      loadSigner(given);
    } catch (e) {
      error = e;
    }
    t.ok(error instanceof SigningKeyError, `${name}: refused`);
    t.match((error as Error).message, message, name);
    t.notMatch((error as Error).message, /TOPSECRET|BEGIN/, `${name}: the contents are not quoted`);
  }
  let error: unknown;
  try {
    loadSigner(ed.publicKey);
  } catch (e) {
    error = e;
  }
  t.match((error as Error).message, /the KeyObject given as signingKey is a public key/, 'a public KeyObject (Node API)');
});

t.test('the right key as a file, as PEM text and as a KeyObject: the same keyid, signatures that verify', async (t) => {
  const keyid = loadSigner(file('good.pem', pkcs8)).keyid;
  t.match(keyid, /^[0-9a-f]{64}$/);
  for (const given of [pkcs8, ed.privateKey]) {
    const signer = loadSigner(given);
    t.equal(signer.keyid, keyid);
    const data = Buffer.from('DSSEv1 4 test 2 hi');
    t.ok(verify(null, data, ed.publicKey, signer.sign(data)), 'an Ed25519 signature of the key');
    t.notOk(JSON.stringify(signer).includes(body(pkcs8)), 'its JSON holds no key');
    t.same(JSON.parse(JSON.stringify(signer)), { keyid });
  }
});
