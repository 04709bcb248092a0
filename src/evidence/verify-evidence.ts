import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { type ParsedEnvelope, IN_TOTO_PAYLOAD_TYPE, pae, strictBase64 } from './dsse.js';
import { keyIdOf } from './signing-key.js';
import type { ReportStatement } from '../protocol/types.generated.js';
import { REPORT_SUBJECT, sha256, STATEMENT_TYPE, TEST_RESULT_PREDICATE } from './statement.js';

/*
 * Offline verification of a signed report with the public key alone (verify-report): the
 * signature over DSSE's PAE, the keyid, then the report's bytes against the statement's digest.
 * Each refusal says whether the evidence is not valid (exit 1) or could not be read (exit 2).
 */

/** Why the evidence is refused: `invalid` (tampered, another key: exit 1) or `unreadable` (exit 2). */
export class EvidenceProblem extends Error {
  override name = 'EvidenceProblem';
  constructor(
    readonly kind: 'invalid' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

const unreadable = (message: string) => new EvidenceProblem('unreadable', message);
const invalid = (message: string) => new EvidenceProblem('invalid', message);
const GET_AGAIN = 'get the evidence again from the provider (wallet-sim report --signed FILE)';

const GIVE_EVIDENCE =
  'give the envelope file that wallet-sim report --signed wrote, or the signed report a ?signed=true route or the probe page saved';

/** What a verifier was given: an envelope, and the report it covers when the file carries it. */
export interface Evidence {
  envelope: ParsedEnvelope;
  /** The report's bytes from a SignedReport file ({ envelope, report }); absent for a bare envelope (its report is a file beside it). */
  report?: Buffer;
}

/**
 * An evidence file's text: a DSSE envelope (report --signed's file), or a SignedReport as the
 * ?signed=true routes answer it and the probe page saves it, `{ envelope, report }` with the
 * report as the exact JSON text signed. Either way the same envelope checks follow.
 */
export function parseEvidence(text: string, name: string): Evidence {
  const doc = parseJson(text, name);
  if (typeof doc !== 'object' || doc === null || !('envelope' in doc)) return { envelope: envelopeOf(doc, name) };
  const { envelope, report } = doc as { envelope: unknown; report?: unknown };
  if (typeof report !== 'string')
    throw unreadable(
      `${name} has an envelope but its "report" is ${report === undefined ? 'missing' : `${report === null ? 'null' : `a ${Array.isArray(report) ? 'list' : typeof report}`}, not the JSON text that was signed`}: ` +
        "save the body of the ?signed=true route unchanged (the probe page's Signed report button does), " +
        'or give the bare envelope and --report <file>',
    );
  return { envelope: envelopeOf(envelope, `${name}'s envelope`), report: Buffer.from(report, 'utf8') };
}

/** An envelope file's text: JSON with payloadType, payload and at least one signature. */
export const parseEnvelope = (text: string, name: string): ParsedEnvelope => envelopeOf(parseJson(text, name), name);

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw unreadable(`${name} is not JSON; ${GIVE_EVIDENCE} (not the report beside an envelope)`);
  }
}

function envelopeOf(doc: unknown, name: string): ParsedEnvelope {
  const e = doc as Partial<ParsedEnvelope> | null;
  const isEnvelope =
    typeof e === 'object' &&
    e !== null &&
    typeof e.payloadType === 'string' &&
    typeof e.payload === 'string' &&
    Array.isArray(e.signatures) &&
    e.signatures.length > 0 &&
    e.signatures.every((s: unknown) => typeof s === 'object' && s !== null && typeof (s as { sig?: unknown }).sig === 'string');
  if (!isEnvelope)
    throw unreadable(
      `${name} is not a DSSE envelope (payloadType, payload, signatures[].sig); ${GIVE_EVIDENCE}` +
        (typeof e === 'object' && e !== null && 'checks' in e ? ': this looks like the report itself' : ''),
    );
  return e as ParsedEnvelope;
}

/** The verifier's public key: an Ed25519 public key as PEM (SPKI, keygen's wallet-sim-signing.pub.pem). */
export function parsePublicKey(pem: string, name: string): KeyObject {
  if (/PRIVATE KEY-----/.test(pem))
    throw unreadable(`${name} is a private key; verify with the public key (wallet-sim-signing.pub.pem), and keep the private one secret`);
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw unreadable(
      `${name} is not a PEM public key; give the wallet-sim-signing.pub.pem of the key that signed (wallet-sim keygen wrote it)`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw unreadable(
      `${name} is an ${key.asymmetricKeyType ?? 'unknown'} key; wallet-sim signs with Ed25519: give its wallet-sim-signing.pub.pem`,
    );
  return key;
}

export interface Verified {
  statement: ReportStatement;
  keyid: string;
}

/** Checks the envelope's signature with this public key and reads its statement. */
export function verifyEnvelope(envelope: ParsedEnvelope, key: KeyObject, keyName: string): Verified {
  const keyid = keyIdOf(key);
  const mine = envelope.signatures.filter((s) => s.keyid === keyid);
  const payload = strictBase64(envelope.payload);
  const verifies = (s: { sig: string }) => {
    const sig = strictBase64(s.sig);
    return payload !== undefined && sig !== undefined && verify(null, pae(envelope.payloadType, payload), key, sig);
  };
  if (!mine.length) {
    const named = envelope.signatures.map((s) => keyIdText(s.keyid));
    // The keyid is only a label beside the signature: a signature this key made, under another or no
    // keyid, is an edited label, not another signer.
    const relabelled = envelope.signatures.find(verifies);
    if (relabelled)
      throw invalid(
        `the keyid was edited: the signature verifies with ${keyName} (keyid ${keyid}), but the envelope names ${keyIdText(relabelled.keyid)}; ` +
          `the signed payload is intact, the envelope around it was changed after signing; ${GET_AGAIN}`,
      );
    throw invalid(
      `signed by another key (the signature names ${named.join(', ')}), not by ${keyName} (keyid ${keyid}; the signature does not verify with it): ` +
        'check that you have the public key of the wallet-sim that signed, else the envelope was edited or re-signed',
    );
  }
  if (!payload) throw invalid(`the payload is not base64: the envelope was edited; ${GET_AGAIN}`);
  const good = mine.some(verifies);
  if (!good)
    throw invalid(`the signature does not match the payload (keyid ${keyid}): the envelope was edited after signing; ${GET_AGAIN}`);
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw unreadable(`the payload is ${envelope.payloadType}, not an in-toto statement (${IN_TOTO_PAYLOAD_TYPE}): not a wallet-sim report`);
  let statement: ReportStatement;
  try {
    statement = JSON.parse(payload.toString('utf8')) as ReportStatement;
  } catch {
    throw unreadable('the signed payload is not JSON: not a wallet-sim report');
  }
  if (statement?._type !== STATEMENT_TYPE || statement.predicateType !== TEST_RESULT_PREDICATE || !subjectOf(statement))
    throw unreadable(
      `the signed statement is not a wallet-sim report (${STATEMENT_TYPE} with a ${TEST_RESULT_PREDICATE} predicate about ${REPORT_SUBJECT})`,
    );
  return { statement, keyid };
}

/** A signature's keyid as a message names it. */
const keyIdText = (id: unknown) => (typeof id === 'string' && id !== '' ? `keyid ${id.slice(0, 100)}` : 'no keyid');

/** The statement's report.json subject. */
export const subjectOf = (statement: ReportStatement) =>
  Array.isArray(statement.subject)
    ? statement.subject.find((s) => s?.name === REPORT_SUBJECT && typeof s.digest?.sha256 === 'string')
    : undefined;

/** The report's bytes against the digest the statement signs. */
export function checkReport(statement: ReportStatement, report: Buffer, reportName: string): void {
  const want = subjectOf(statement)!.digest!.sha256;
  const got = sha256(report);
  if (got !== want)
    throw invalid(
      `${reportName} is not the report that was signed (its sha256 is ${got}, the signature covers ${want}): ` +
        `it was edited, or belongs to another envelope; ${GET_AGAIN}`,
    );
}

/**
 * The checks still pending when the report was signed (their windows open: the verdict may still
 * change), which the statement's warned list holds with the failing warnings: named apart in the
 * subject's `pending_checks`; for a statement signed before that, read from the report its digest
 * covers (its checks' status). Undefined when neither tells.
 */
export function pendingChecks(statement: ReportStatement, report: Buffer): string[] | undefined {
  const named = subjectOf(statement)?.annotations?.pending_checks;
  if (Array.isArray(named) && named.every((id) => typeof id === 'string')) return named as string[];
  let doc: { checks?: unknown; walletChecks?: unknown };
  try {
    doc = JSON.parse(report.toString('utf8')) as typeof doc;
  } catch {
    return undefined;
  }
  if (!Array.isArray(doc?.checks)) return undefined;
  const listed = [...doc.checks, ...(Array.isArray(doc.walletChecks) ? doc.walletChecks : [])] as { id?: unknown; status?: unknown }[];
  const pending = new Set(listed.filter((c) => c?.status === 'pending').map((c) => c.id));
  return (statement.predicate.warnedTests ?? []).filter((id) => pending.has(id));
}
