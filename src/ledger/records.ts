import { type Change, roundKey } from './change.js';

/**
 * The change records a store keeps, one entry per kind: how a record is keyed (a later record with
 * the same key replaces the earlier one, as WalletState.apply does) and how each field is checked
 * when read back from disk. The table's order is the order a snapshot lists the kinds in (that of
 * WalletState.changes()).
 *
 * A new kind of record is one line here; the compiler asks for it once the kind is in `Change`,
 * and for a check of every field.
 */
export const RECORD_KINDS: { readonly [K in KeyedOp]: RecordKind<Extract<Change, { op: K }>> } = {
  player: { key: (c) => c.user_id, fields: { user_id: text, balance: amount, currency: code } },
  round: {
    key: (c) => roundKey(c.user_id, c.game_no),
    fields: { user_id: text, game_no: text, currency: code, stake: amount, bets, settled: flag },
  },
  bets: { key: (c) => roundKey(c.user_id, c.game_no), fields: { user_id: text, game_no: text, currency: code, bets } },
  txn: {
    key: (c) => c.transaction_id,
    fields: {
      transaction_id: text,
      user_id: text,
      event_type: text,
      fingerprint: text,
      game_no: optional(text),
      currency: optional(code),
      amount: optional(amount),
      balance_after: optional(amount),
      applied_at: optional(time),
    },
  },
  forgotten: { key: () => 'forgotten', fields: { generations: texts, active: text } },
};

/** Every op but `clear` (which empties the state and has no fields). */
export type KeyedOp = Exclude<Change['op'], 'clear'>;

type Check = (v: unknown) => string | undefined;
interface RecordKind<C extends Change> {
  key: (c: C) => string;
  fields: { readonly [F in Exclude<keyof C, 'op'>]-?: Check };
}

export const KINDS = Object.keys(RECORD_KINDS) as KeyedOp[];

/**
 * A settled round is kept by its key alone (WalletState.changes() writes it with an empty currency,
 * stake 0 and no bets), so its currency may be empty; older snapshots still carry the round's.
 */
const SETTLED_ROUND_FIELDS = { ...RECORD_KINDS.round.fields, currency: text };

/** The key of a (valid) record among the records of its kind. */
export function recordKey(c: Exclude<Change, { op: 'clear' }>): string {
  return (RECORD_KINDS[c.op].key as (c: Change) => string)(c);
}

/**
 * Why a value read from disk is not a valid change record, or undefined when it is one. The
 * answer names the field and the value, so a message can point at the exact spot to fix.
 */
export function changeProblem(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'is not an object (a change record)';
  const c = v as Record<string, unknown>;
  if (c.op === 'clear') return undefined;
  const op = typeof c.op === 'string' && Object.hasOwn(RECORD_KINDS, c.op) ? (c.op as KeyedOp) : undefined;
  if (!op) return `has an unknown op ${clip(c.op)} (known: ${[...KINDS, 'clear'].join(', ')})`;
  const fields = op === 'round' && c.settled === true ? SETTLED_ROUND_FIELDS : RECORD_KINDS[op].fields;
  for (const [field, check] of Object.entries(fields) as [string, Check][]) {
    const problem = Object.hasOwn(c, field) ? check(c[field]) : (check as { optional?: boolean }).optional ? undefined : 'is missing';
    if (problem) return `is not a valid ${op} record: ${field} ${problem}`;
  }
  return undefined;
}

/**
 * Amounts are written by `toJsonNumber`: plain decimal notation, never negative (balances, stakes
 * and bets are all >= 0), at most 60 significant digits (the precision of Money).
 */
const DECIMAL = /^\d{1,60}(\.\d{1,60})?$/;
const MAX_DIGITS = 60;

function amount(v: unknown): string | undefined {
  if (typeof v !== 'string') return `must be a decimal string such as "12.50", not ${clip(v)}`;
  if (!DECIMAL.test(v)) return `${clip(v)} is not a decimal amount >= 0 (digits with an optional fraction, such as "12.50")`;
  if (v.replace('.', '').replace(/^0+/, '').length > MAX_DIGITS) return `${clip(v)} has more than ${MAX_DIGITS} digits`;
  return undefined;
}

/** The check of a field a record may leave out. */
function optional(check: Check): Check {
  return Object.assign((v: unknown) => check(v), { optional: true });
}

function texts(v: unknown): string | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : `must be an array of strings, not ${clip(v)}`;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? undefined : `must be a string, not ${clip(v)}`;
}

function code(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? undefined : `must be a non-empty string, not ${clip(v)}`;
}

function time(v: unknown): string | undefined {
  return Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : `must be a time in ms since the epoch, not ${clip(v)}`;
}

function flag(v: unknown): string | undefined {
  return typeof v === 'boolean' ? undefined : `must be true or false, not ${clip(v)}`;
}

function bets(v: unknown): string | undefined {
  if (!Array.isArray(v)) return `must be an array of [bet_index, bet_type, bet_amount], not ${clip(v)}`;
  for (let i = 0; i < v.length; i++) {
    const b: unknown = v[i];
    if (!Array.isArray(b) || b.length !== 3) return `/${i} must be [bet_index, bet_type, bet_amount], not ${clip(b)}`;
    const problem = text(b[0]) ?? text(b[1]) ?? amount(b[2]);
    if (problem) return `/${i} ${problem}`;
  }
  return undefined;
}

/** A value as JSON, cut short: a message must stay readable whatever the file holds. */
function clip(v: unknown): string {
  const s = v === undefined ? 'undefined' : typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
