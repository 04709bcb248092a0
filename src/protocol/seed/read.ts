import sjson from 'secure-json-parse';
import { type Finding, finding } from '../findings.js';
import type { CallbackRequest } from '../types.generated.js';
import { describeErrors, eventTypes, validator } from '../schemas.js';
import type { CallbackInput, Intake, ReadContext } from '../port.js';
import { MAX_EXACT_DIGITS, Money } from '../../kernel/money.js';
import { duplicateKeys, keysAndColons, mayRepeatKeys, numberTexts } from '../../kernel/raw-json.js';

export type { CallbackInput, Intake } from '../port.js';

// Compiled at start: the first callback's reply must not wait for it.
const validateRequest = validator<CallbackRequest>('CallbackRequest', 'now');

/** Largest body an unauthenticated caller gets parsed (for the findings and the echo of its reply). */
export const UNAUTHENTICATED_READ_LIMIT = 16 * 1024;

/** Authenticate → parse → validate: every defect of the request becomes a finding, nothing throws. */
export function readCallback(sim: ReadContext, input: CallbackInput): Intake {
  const findings: Finding[] = [];
  const header = (name: string) => first(input.headers[name]);
  const credentialFindings = authenticate(sim, header('api-id'), header('api-key'));
  const authenticated = credentialFindings.length === 0;
  // An unauthenticated caller gets its R2 for the price of a small body at most: a larger one is
  // neither parsed nor validated, and only an excerpt of it is journalled.
  const readable = authenticated || input.body.length <= UNAUTHENTICATED_READ_LIMIT;
  const [parsed, readAnyway] = readable ? parseBody(input, findings) : [];
  const echo = echoFields(parsed ?? readAnyway);
  // No request nests this deep; a body that does would overflow the stack of every recursive walk
  // after this one (fingerprint, journal serialisation), so it is refused here and journalled as text.
  // (one walk: its depth, and what tells whether the text may name a key twice)
  const shape = parsed === undefined ? 0 : keysAndColons(parsed, MAX_DEPTH);
  if (shape < 0) findings.push(finding('SCHEMA', `the body nests deeper than ${MAX_DEPTH} levels`, '/'));
  const body = shape < 0 ? undefined : parsed;
  if (body !== undefined && mayRepeatKeys(input.body, shape)) repeatedKeyFindings(input.body, findings);
  if (header('callback-url') === undefined) findings.push(finding('CALLBACK_URL_MISSING', undefined, 'header:Callback-URL'));
  if (!authenticated) findings.push(...credentialFindings);
  const request = body !== undefined && validateRequest(body) ? body : undefined;
  if (body !== undefined && !request) findings.push(...schemaFindings(body, echo));
  // (read from a body the schema refuses too: a provider sees every defect of its client at once)
  const timestamp = request ? request.timestamp : (body as { timestamp?: unknown } | undefined)?.timestamp;
  if (typeof timestamp === 'number' && (request || Number.isFinite(timestamp))) timestampFindings(timestamp, sim.timestampSkewS, findings);
  if (request && (mayReadOtherwise(input.body) || timestampWrittenWithFraction(input.body))) writtenFindings(input.body, findings);
  return { authenticated, body, request, echo, findings };
}

function schemaFindings(body: unknown, echo: Intake['echo']): Finding[] {
  const errors = validateRequest.errors ?? [];
  const absent = echo.event_type === undefined && (body === null || typeof body !== 'object' || !('event_type' in body));
  return describeErrors(errors).flatMap(({ pointer, message }, i) => {
    // The discriminator's own words ("value of tag … must be in oneOf") say nothing to a
    // provider; a missing event_type is already reported as required.
    if (errors[i]!.keyword !== 'discriminator') return [finding('SCHEMA', `${pointer} ${message}`, pointer)];
    return absent ? [] : [finding('SCHEMA', `/event_type must be one of ${eventTypes.join(', ')}`, '/event_type')];
  });
}

/** Far beyond any request (the deepest, a bet, nests 4 levels). */
const MAX_DEPTH = 32;

export { first } from '../../http/headers.js';
import { first } from '../../http/headers.js';

/**
 * The body parsed, or undefined with the findings saying why; and a body refused only for a
 * forbidden key (`__proto__`, `constructor.prototype`) as plain JSON.parse reads it (it makes such a
 * key an own property, never a prototype), for the echo of the reply's event_type and user_id alone.
 */
function parseBody(input: CallbackInput, findings: Finding[]): [body: unknown, readAnyway?: unknown] {
  const header = first(input.headers['content-type']) ?? '';
  const type = header === 'application/json' ? header : header.split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    findings.push(
      finding(
        'CONTENT_TYPE_WRONG',
        `Content-Type is ${type ? JSON.stringify(type) : input.headers['content-type'] === undefined ? 'missing' : 'empty'}, not application/json`,
        'header:Content-Type',
      ),
    );
  if (isBlank(input.body)) {
    findings.push(finding('BODY_EMPTY'));
    return [undefined];
  }
  try {
    return [sjson.parse(input.body, null, { protoAction: 'error', constructorAction: 'error' })];
  } catch (e) {
    const message = (e as Error).message;
    if (!message.startsWith('Object contains forbidden')) {
      findings.push(finding('BODY_NOT_JSON', `the body is not valid JSON: ${message}`));
      return [undefined];
    }
    findings.push(finding('BODY_FORBIDDEN_KEY', `the body has a forbidden key: ${message}`));
    return [undefined, JSON.parse(input.body)];
  }
}

/** Whether a text is empty or whitespace only, without trimming a copy of it. */
const isBlank = (text: string): boolean => text.length === 0 || (/\s/.test(text[0]!) && text.trim() === '');

/** event_type and user_id as the caller sent them, when they are readable strings. */
function echoFields(body: unknown): { event_type?: string; user_id?: string } {
  if (body === null || typeof body !== 'object') return {};
  const { event_type, user_id } = body as Record<string, unknown>;
  return {
    event_type: typeof event_type === 'string' ? event_type : undefined,
    user_id: typeof user_id === 'string' ? user_id : undefined,
  };
}

/** Where a provider finds the credentials to send (an R2's reason says it). */
const whereCredentials = (sim: ReadContext) => `send the credentials this wallet expects: ${sim.credentialsAt}`;

function authenticate(sim: ReadContext, apiId: string | undefined, apiKey: string | undefined): Finding[] {
  if (apiId === undefined || apiKey === undefined) {
    const missing = [apiId === undefined && 'Api-Id', apiKey === undefined && 'Api-Key'].filter(Boolean).join(' and ');
    return [finding('CREDENTIALS_MISSING', `${missing} header missing; ${whereCredentials(sim)}`, `header:${missing.split(' ')[0]}`)];
  }
  const { id: idOk, key: keyOk } = sim.checkCredentials(apiId, apiKey);
  if (idOk && keyOk) return [];
  return [
    finding(
      'CREDENTIALS_WRONG',
      `${!idOk ? 'Api-Id' : 'Api-Key'} does not match this wallet's credentials; ${whereCredentials(sim)}`,
      `header:${!idOk ? 'Api-Id' : 'Api-Key'}`,
    ),
  ];
}

/**
 * A number JSON.parse may have read as another value than the one written: 16 or more digits (a
 * double holds 15 exactly), or an exponent of three digits (beyond a double's range, or below its
 * full precision). Most bodies have none, and are not scanned again. Only what follows `"data"` is
 * searched (the amounts are there; a login has none), from each colon (an amount is a key's value):
 * about 0.5 µs a bet on a busy 2-core machine (docs/bench.md). A body scanned has its timestamp
 * judged as written too.
 */
const MAY_READ_OTHERWISE = /:[\s-]*(?:[\d.]{16}|[\d.]+[eE][+-]?\d{3})/g;

/** Whether the amounts (under `data`: a login has none) may read otherwise; the search starts at `data`. */
function mayReadOtherwise(body: string): boolean {
  const data = body.indexOf('"data"');
  if (data < 0) return false;
  MAY_READ_OTHERWISE.lastIndex = data;
  return MAY_READ_OTHERWISE.test(body);
}

/**
 * Whether the first `"timestamp":` of the text is followed by a number with a fraction or an
 * exponent (`1796042410.0` reads as an integer): then the numbers are read as written. A match that
 * is no top-level key is harmless: the scan that follows judges /timestamp alone.
 */
function timestampWrittenWithFraction(body: string): boolean {
  const at = body.indexOf('"timestamp"');
  if (at < 0) return false;
  TIMESTAMP_VALUE.lastIndex = at + 11;
  return TIMESTAMP_VALUE.test(body);
}
const TIMESTAMP_VALUE = /\s*:\s*-?\d*[.eE]/y;

/** A key named twice in one object: JSON parsers differ on which value they keep, so the body is refused. */
function repeatedKeyFindings(text: string, out: Finding[]): void {
  for (const pointer of duplicateKeys(text))
    out.push(
      finding(
        'KEY_REPEATED',
        `${pointer} is named twice in one object: JSON parsers differ on which value counts (this wallet reads the last, others the first); send each key once`,
        pointer,
      ),
    );
}

/** The request's amounts, by the last key of their pointer under /data. */
const AMOUNT_KEYS = new Set(['total_bet_amount', 'bet_amount', 'total_winloss', 'winloss']);

/**
 * Numbers the parser read as other values than the ones written (`10.000000000000000001` reads as
 * 10): an amount is judged as written, so one that a JSON number cannot hold is refused (R3), never
 * taken for the value it happens to read as; a timestamp written with a fraction is not an integer.
 */
function writtenFindings(text: string, out: Finding[]): void {
  for (const [pointer, written] of numberTexts(text)) {
    const read = Number(written);
    // (beyond a double's range it reads as Infinity: AMOUNT_NOT_FINITE, the event's own check, says so)
    if (!Number.isFinite(read) || new Money(written).eq(new Money(String(read)))) continue;
    const key = pointer.slice(pointer.lastIndexOf('/') + 1);
    if (pointer.startsWith('/data/') && AMOUNT_KEYS.has(key))
      out.push(
        finding(
          'AMOUNT_INEXACT',
          `${pointer} is written ${excerpt(written)}, which a JSON number cannot hold exactly (it reads as ${read}); send amounts with at most ${MAX_EXACT_DIGITS} significant digits and the currency's fraction digits`,
          pointer,
        ),
      );
    else if (pointer === '/timestamp' && Number.isInteger(read) && !new Money(written).isInteger())
      out.push(finding('TIMESTAMP_NOT_INTEGER', `timestamp is written ${excerpt(written)}, not an integer number of seconds`, pointer));
  }
}

/** A number's text, cut to a length a message (and the reason header) can carry. */
const excerpt = (written: string): string => (written.length <= 40 ? written : `${written.slice(0, 20)}…${written.slice(-12)}`);

/** Adds to `out` what is wrong with the timestamp, if anything. */
function timestampFindings(ts: number, skewS: number, out: Finding[]): void {
  // 1e400 parses to Infinity: not a time at all, unlike a merely fractional or skewed one.
  if (!Number.isFinite(ts)) {
    out.push(finding('SCHEMA', `/timestamp ${ts} is not a finite number`, '/timestamp'));
    return;
  }
  if (!Number.isInteger(ts))
    out.push(finding('TIMESTAMP_NOT_INTEGER', `timestamp ${ts} is not an integer number of seconds`, '/timestamp'));
  const off = Math.round(ts - Date.now() / 1000);
  if (Math.abs(off) > skewS)
    out.push(
      finding(
        'TIMESTAMP_SKEWED',
        `timestamp is ${Math.abs(off)} s ${off < 0 ? 'behind' : 'ahead of'} the wallet clock (allowed ${skewS} s)${ts > 1e11 ? '; milliseconds instead of seconds?' : ''}`,
        '/timestamp',
      ),
    );
}
