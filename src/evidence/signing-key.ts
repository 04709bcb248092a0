import { createHash, createPrivateKey, createPublicKey, KeyObject, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { CLI_NAMING, type OptionNaming } from '../text/option-naming.js';

/*
 * The Ed25519 key that signs reports (start --signing-key). It stays inside the Signer: no
 * property, JSON form, inspection or message ever holds the key, only its public half's keyid.
 */

const KEYGEN = 'create a key pair with `wallet-sim keygen --out <dir>` and pass its wallet-sim-signing.pem';

/** The key cannot be used; the message names the option, the file (never its contents) and the fix. */
export class SigningKeyError extends Error {
  override name = 'SigningKeyError';
}

/** Hex sha256 of a public key's SPKI DER: DSSE's keyid, the same for the private key and its public half. */
export const keyIdOf = (key: KeyObject): string =>
  createHash('sha256')
    .update((key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' }))
    .digest('hex');

/** Signs with a private key it never shows. */
export class Signer {
  readonly #key: KeyObject;
  /** Hex sha256 of the public key's SPKI DER. */
  readonly keyid: string;

  constructor(key: KeyObject) {
    this.#key = key;
    this.keyid = keyIdOf(key);
  }

  /** Ed25519 signature of these bytes. */
  sign(data: Buffer): Buffer {
    return sign(null, data, this.#key);
  }

  /** The public key, SPKI PEM. */
  publicKeyPem(): string {
    return createPublicKey(this.#key).export({ type: 'spki', format: 'pem' }).toString();
  }

  toJSON(): { keyid: string } {
    return { keyid: this.keyid };
  }

  [inspect.custom](): string {
    return `Signer { keyid: '${this.keyid}' }`;
  }
}

/**
 * The signing key from --signing-key: a file holding an Ed25519 private key as PEM (PKCS#8, as
 * keygen writes it), the PEM text itself (a secret handed over in an environment variable), or,
 * from the Node API, a KeyObject. Throws a SigningKeyError saying what is wrong and what to do.
 */
export function loadSigner(given: string | KeyObject, name: OptionNaming = CLI_NAMING): Signer {
  const flag = name.option('signingKey');
  if (given instanceof KeyObject) return new Signer(checked(given, 'the KeyObject given as signingKey'));
  // The Node API takes any value: a wrong type is named, not a TypeError from below.
  if (typeof given !== 'string') {
    const kind = Buffer.isBuffer(given)
      ? 'a Buffer'
      : given === null
        ? 'null'
        : `${/^[aeiou]/.test(typeof given) ? 'an' : 'a'} ${typeof given}`;
    const text = Buffer.isBuffer(given) ? ' (buf.toString())' : '';
    throw new SigningKeyError(
      `signingKey is ${kind}, not a key: give the path of the Ed25519 private key file, its PEM text${text}, or a KeyObject`,
    );
  }
  const inline = given.includes('-----BEGIN');
  const where = inline ? `the PEM text given to ${flag}` : `${flag} ${given}`;
  const pem = inline ? given : readKeyFile(given, flag);
  if (/-----BEGIN (RSA |EC )?PUBLIC KEY-----/.test(pem) && !/PRIVATE KEY-----/.test(pem))
    throw new SigningKeyError(
      `${where} is a public key; signing needs the private key (wallet-sim-signing.pem, not the .pub.pem beside it)`,
    );
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (e) {
    // Never the library's message: it may quote what it could not parse.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_MISSING_PASSPHRASE' || /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem))
      throw new SigningKeyError(
        `${where} is encrypted; give it unencrypted (openssl pkey -in KEY -out PLAIN.pem) in a file only wallet-sim's user can read, or ${KEYGEN}`,
      );
    throw new SigningKeyError(`${where} is not a PEM private key; ${KEYGEN}`);
  }
  return new Signer(checked(key, where));
}

function checked(key: KeyObject, where: string): KeyObject {
  if (key.type !== 'private')
    throw new SigningKeyError(`${where} is a ${key.type} key; signing needs the Ed25519 private key (wallet-sim-signing.pem)`);
  if (key.asymmetricKeyType !== 'ed25519')
    throw new SigningKeyError(`${where} is an ${key.asymmetricKeyType ?? 'unknown'} key; reports are signed with Ed25519: ${KEYGEN}`);
  return key;
}

function readKeyFile(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SigningKeyError(`${flag} ${path}: no such file; ${KEYGEN}`);
    if (code === 'EISDIR')
      throw new SigningKeyError(`${flag} ${path} is a directory; give the private key file in it (e.g. ${path}/wallet-sim-signing.pem)`);
    if (code === 'EACCES')
      throw new SigningKeyError(`${flag} ${path}: permission denied; run wallet-sim as the user that owns the key file`);
    throw new SigningKeyError(`${flag} ${path}: cannot be read (${code ?? 'unknown error'}); ${KEYGEN}`);
  }
}
