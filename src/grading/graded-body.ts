import { createHash } from 'node:crypto';
import { jsonExcerpt, ownString } from '../json-excerpt.js';

/*
 * What grading keeps of a request body, per attempt, for as long as the session lasts: never the
 * body itself. Bodies used to be kept whole up to 8 KiB, so 4 KB of feedback_data per callback held
 * the heap near 620 MB. What the checks need of a body is small:
 * - RETRY_UNCHANGED: whether a resend is the same body, timestamp aside (the digest, exact), and
 *   which fields changed when it is not (a short digest per field);
 * - NO_RETRY_AFTER_REFUSAL: what makes two bets or settlements the same but for their ids (`stake`);
 * - a violation's evidence: the request as it came (a bounded excerpt of its JSON).
 */

/** Characters of the body's JSON kept as evidence. */
export const BODY_EXCERPT_CHARS = 600;
/** Fields (top level and under data) whose digests are kept; a body with more keeps none (only the whole digest). */
export const MAX_FIELDS = 48;
/** Hex digits of a field's digest (48 bits: for naming what changed, not for deciding it). */
const FIELD_DIGEST_HEX = 12;
/** Characters of a field's name kept (a caller may send any name). */
const MAX_FIELD_NAME = 64;
/** A stake longer than this is kept as its digest. */
const STAKE_CHARS = 256;

export interface GradedBody {
  /** SHA-256 (hex) of the body without its timestamp, keys in a stable order: resends compare by it. */
  sha256: string;
  /** Per field ("feedback_data", "data.total_bet_amount"…, timestamp aside), a short digest of its value. */
  fields?: Record<string, string>;
  /** Currency, totals and the bets' types and amounts (sorted): the same stake under another transaction_id. */
  stake: string;
  /** The start of the body's JSON, at most BODY_EXCERPT_CHARS (with the total length when cut). */
  excerpt: string;
  /** Characters of the body as received. */
  characters: number;
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * SHA-256 of a JSON value, keys in sorted order, fed piece by piece: never the value's JSON text as
 * one string (a 1 MiB body would be copied once more). Unambiguous: strings carry their length.
 */
function digestOf(value: unknown, skipTopKey?: string): string {
  const hash = createHash('sha256');
  const feed = (v: unknown, skip?: string): void => {
    if (typeof v === 'string') hash.update(`s${v.length}:`).update(v);
    else if (typeof v === 'number' || typeof v === 'boolean') hash.update(`${typeof v === 'number' ? 'n' : 'b'}${String(v)};`);
    else if (v === null) hash.update('z');
    else if (Array.isArray(v)) {
      hash.update('[');
      for (const item of v) feed(item);
      hash.update(']');
    } else if (typeof v === 'object') {
      hash.update('{');
      for (const k of Object.keys(v).sort()) {
        if (k === skip) continue;
        hash.update(`k${k.length}:`).update(k);
        feed((v as Record<string, unknown>)[k]);
      }
      hash.update('}');
    } else hash.update('u');
  };
  feed(value, skipTopKey);
  return hash.digest('hex');
}

function fieldDigests(body: Record<string, unknown>): Record<string, string> | undefined {
  const data = record(body.data);
  const count = Object.keys(body).length + (data ? Object.keys(data).length : 0);
  if (count > MAX_FIELDS) return undefined;
  const fields: Record<string, string> = {};
  const add = (name: string, value: unknown) => {
    const key = name.length <= MAX_FIELD_NAME ? name : `${ownString(name.slice(0, MAX_FIELD_NAME))}…`;
    fields[key] = digestOf(value).slice(0, FIELD_DIGEST_HEX);
  };
  for (const [k, v] of Object.entries(body)) {
    if (k === 'timestamp') continue;
    if (k === 'data' && data) for (const [d, dv] of Object.entries(data)) add(`data.${d}`, dv);
    else add(k, v);
  }
  return fields;
}

/** What makes two bets (or settlements) the same but for ids and timestamp: currency, totals, bets' types and amounts. */
function stakeOf(body: Record<string, unknown> | undefined): string {
  const data = record(body?.data) ?? {};
  const items = (Array.isArray(data.bets) ? data.bets : Array.isArray(data.bet_results) ? data.bet_results : [])
    .map((b) => {
      const r = record(b) ?? {};
      return JSON.stringify([r.bet_type, r.bet_amount, r.winloss]);
    })
    .sort();
  const text = JSON.stringify([data.currency, data.total_bet_amount, data.total_winloss, items]);
  return text.length <= STAKE_CHARS ? ownString(text) : `sha256:${sha256(text)}`;
}

function excerptOf(body: unknown, chars: number): string {
  const { text, cut } = jsonExcerpt(body, BODY_EXCERPT_CHARS);
  return cut ? ownString(`${text}… (${chars || 'more'} characters)`) : text;
}

/** The body as grading keeps it: `body` graded, or kept as it is when it is already (a resend folded again). */
export const asGraded = (body: unknown): GradedBody => (isGraded(body) ? body : gradedBody(body, 0));

/** The body as grading keeps it. `chars`: the length of the body's text as received (0: unknown). */
export function gradedBody(body: unknown, chars: number): GradedBody {
  const object = record(body);
  const graded: GradedBody = {
    sha256: digestOf(body, object ? 'timestamp' : undefined),
    stake: stakeOf(object),
    excerpt: excerptOf(body, chars),
    characters: chars,
  };
  const fields = object ? fieldDigests(object) : undefined;
  if (fields) graded.fields = fields;
  return graded;
}

/** A body grading kept (a GradedBody), as opposed to a whole one. */
export function isGraded(body: unknown): body is GradedBody {
  const r = record(body);
  return typeof r?.sha256 === 'string' && typeof r.excerpt === 'string' && typeof r.stake === 'string';
}

/** The fields two graded bodies differ in (undefined when either kept no field digests). */
export function differingFields(a: GradedBody, b: GradedBody): string[] | undefined {
  if (!a.fields || !b.fields) return undefined;
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a.fields), ...Object.keys(b.fields)])) if (a.fields[k] !== b.fields[k]) out.push(k);
  return out;
}
