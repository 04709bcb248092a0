import { stringify } from 'safe-stable-stringify';
import { jsonExcerpt, ownString } from '../text/json-excerpt.js';
import { bodyDigest, sha256Hex } from '../kernel/digest.js';

/*
 * What grading keeps of a request body, per attempt, for as long as the session lasts: never the
 * body itself. Bodies used to be kept whole up to 8 KiB, so 4 KB of feedback_data per callback held
 * the heap near 620 MB. What the checks need of a body is small:
 * - RETRY_UNCHANGED: whether a resend is the same body, timestamp aside (the digest, exact), and
 *   which fields changed when it is not (a short digest per field);
 * - NO_RETRY_AFTER_REFUSAL: what makes two bets or settlements the same but for their ids (`stake`);
 * - RETRY_SAME_TRANSACTION: whether a bet under a new id carries the lost one's bets (`stake`, `indexes`);
 * - a violation's evidence: the request as it came (a bounded excerpt of its JSON).
 */

/** Characters of the body's JSON kept as evidence. */
export const BODY_EXCERPT_CHARS = 600;
/** Fields (top level and under data) whose digests are kept; a body with more keeps none (only the whole digest). */
export const MAX_FIELDS = 48;
/** A body up to this long is written whole, then cut (the native JSON.stringify, no replacer). */
const QUICK_EXCERPT_CHARS = 16 * 1024;
/** Characters of a field's name kept (a caller may send any name). */
const MAX_FIELD_NAME = 64;
/** A stake longer than this is kept as its digest. */
const STAKE_CHARS = 256;

export interface GradedBody {
  /** SHA-256 (hex) of the body without its timestamp, keys in a stable order: resends compare by it. */
  sha256: string;
  /** Per field ("feedback_data", "data.total_bet_amount"…, timestamp aside): its JSON when short, else a quick hash of it. */
  fields?: Record<string, string | number | boolean | null>;
  /** Currency, totals and the bets' types and amounts (sorted): the same stake under another transaction_id. */
  stake: string;
  /** The bets' bet_index values (sorted, as JSON), when any bet has one: which bets of the round these are. */
  indexes?: string;
  /** The start of the body's JSON, at most BODY_EXCERPT_CHARS (with the total length when cut). */
  excerpt: string;
  /** Characters of the body as received. */
  characters: number;
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** A field's value kept as its JSON text up to this length; a longer one as a short hash of it. */
const FIELD_TEXT_CHARS = 40;

/** A quick 64-bit hash (two FNV-1a lanes), for naming the fields that changed: never for deciding it. */
function quickHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 16777619);
    b = Math.imul(b ^ c, 2246822519);
  }
  return `#${(a >>> 0).toString(16)}${(b >>> 0).toString(16)}`;
}

/** A field's mark: a short scalar as it is (no work), a long string or an object as a quick hash of its JSON. */
function fieldMark(value: unknown): string | number | boolean | null {
  if (typeof value === 'string') return value.length > FIELD_TEXT_CHARS ? quickHash(value) : value;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  return quickHash(stringify(value) ?? 'undefined'); // keys in a stable order
}

function fieldDigests(body: Record<string, unknown>): GradedBody['fields'] {
  const data = record(body.data);
  const count = Object.keys(body).length + (data ? Object.keys(data).length : 0);
  if (count > MAX_FIELDS) return undefined;
  const fields: NonNullable<GradedBody['fields']> = {};
  const add = (name: string, value: unknown) => {
    const key = name.length <= MAX_FIELD_NAME ? name : `${ownString(name.slice(0, MAX_FIELD_NAME))}…`;
    fields[key] = fieldMark(value);
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
  return text.length <= STAKE_CHARS ? text : `sha256:${sha256Hex(text)}`;
}

/** The bets' (or bet results') bet_index values, sorted, as JSON; undefined when none has one. */
function indexesOf(body: Record<string, unknown> | undefined): string | undefined {
  const data = record(body?.data) ?? {};
  const items = Array.isArray(data.bets) ? data.bets : Array.isArray(data.bet_results) ? data.bet_results : [];
  const indexes = items.map((b) => record(b)?.bet_index).filter((i) => i !== undefined);
  if (!indexes.length) return undefined;
  const text = JSON.stringify(indexes.map((i) => JSON.stringify(i)).sort());
  return text.length <= STAKE_CHARS ? text : `sha256:${sha256Hex(text)}`;
}

/**
 * Whether two bets (or settlements) of one round carry the same bets: the same stake (currency,
 * totals, types and amounts), and the same bet_index values unless either has none. Two chips of
 * one round under their own bet_index are two bets, even of the same type and amount.
 */
export function sameBets(a: GradedBody, b: GradedBody): boolean {
  return a.stake === b.stake && (a.indexes === undefined || b.indexes === undefined || a.indexes === b.indexes);
}

function excerptOf(body: unknown, chars: number, raw?: string): string {
  // The text as received when the route has it: no JSON to write (a string of its own when cut).
  if (raw !== undefined)
    return raw.length <= BODY_EXCERPT_CHARS ? raw : ownString(`${raw.slice(0, BODY_EXCERPT_CHARS)}… (${raw.length} characters)`);
  const { text, cut } = jsonExcerpt(body, BODY_EXCERPT_CHARS, chars > 0 && chars <= QUICK_EXCERPT_CHARS);
  return cut ? ownString(`${text}…${chars ? ` (${chars} characters)` : ''}`) : text;
}

/**
 * Bodies up to this many characters are kept as parsed, and graded only if a check compares them
 * (a resend, a refusal resent under a new id: most bodies never are). Grading every body when it
 * arrives cost about 30 µs of CPU per callback (digest, field marks, stake, excerpt; docs/bench.md);
 * a body this short costs grading about what its GradedBody would. Longer ones (4 KB of
 * feedback_data) are graded at once and never kept.
 */
export const KEPT_WHOLE_CHARS = 1024;

/** What grading keeps of a callback's body on arrival: the body itself when short, else its GradedBody. */
export const keptBody = (body: unknown, chars: number, raw?: string): unknown =>
  chars > 0 && chars <= KEPT_WHOLE_CHARS ? body : gradedBody(body, chars, raw);

/** The body as grading keeps it: `body` graded, or kept as it is when it is already (a resend folded again). */
export const asGraded = (body: unknown): GradedBody => (isGraded(body) ? body : gradedBody(body, 0));

/**
 * The body as grading keeps it. `chars`: the length of the body's text as received (0: unknown);
 * `raw`: that text, when the caller still has it (the excerpt is then cut from it).
 */
export function gradedBody(body: unknown, chars: number, raw?: string): GradedBody {
  const object = record(body);
  const graded: GradedBody = {
    sha256: bodyDigest(body),
    stake: stakeOf(object),
    excerpt: excerptOf(body, chars, raw),
    characters: chars,
  };
  const fields = object ? fieldDigests(object) : undefined;
  if (fields) graded.fields = fields;
  const indexes = indexesOf(object);
  if (indexes !== undefined) graded.indexes = indexes;
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
