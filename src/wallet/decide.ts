import * as crypto from 'node:crypto';
import { eventOf } from '../protocol/seed/index.js';
import type { WalletConfig } from '../protocol/event.js';
import { type Money, money, toJsonNumber } from '../kernel/money.js';
import type { Code } from '../protocol/seed/codes.js';
import { type Finding, finding } from '../protocol/findings.js';
import type { CallbackRequest } from '../protocol/types.generated.js';
import type { Change } from '../ledger/change.js';
import type { Player } from '../ledger/state.js';
import type { Decided, View } from '../ledger/store.js';
import { canonicalBody, FINGERPRINT_MARK, fingerprintOf } from '../kernel/digest.js';
import { INVALID, NOT_ENOUGH_BALANCE, SUCCESS } from '../protocol/seed/codes.js';

export type { WalletConfig } from '../protocol/event.js';

/** What the wallet decided for one well-formed, authenticated callback. */
export interface Decision extends Decided {
  code: Code;
  /** What the caller did wrong, as far as the money rules can tell. */
  findings: Finding[];
  /** The player's balance after the callback (absent when the player is unknown). */
  balance?: Money;
  balanceBefore?: Money;
  replayed: boolean;
}

/**
 * The rules of the money (docs/design.md "Wallet rules"), pure: the records read for a callback in, the
 * code, the changes and the findings out. Idempotency first, then the player, then the event's own
 * checks (src/protocol/seed/). Applying the changes and making them durable are the store's.
 */
export function decide(view: View, req: CallbackRequest, config: WalletConfig): Decision {
  const findings: Finding[] = [];
  const existing = view.player;
  const refuse = (code: Code, balance = existing?.balance): Decision => ({
    code,
    findings,
    balance,
    balanceBefore: existing?.balance,
    replayed: false,
    changes: [],
  });

  const known = view.transaction;
  if (!known && view.transactionForgotten) {
    findings.push(
      finding(
        'TRANSACTION_EXPIRED',
        `transaction_id ${req.transaction_id} may belong to a transaction applied long ago and forgotten (--retain-transactions): refused so that it is never applied twice; send new callbacks with new transaction_ids`,
        '/transaction_id',
      ),
    );
    return refuse(INVALID);
  }
  const fingerprint = fingerprintOf(req);
  if (known) {
    if (sameRequest(known.fingerprint, fingerprint, req)) {
      findings.push(finding('TRANSACTION_REPLAYED', `transaction_id ${req.transaction_id} was already applied: replayed, nothing changed`));
      return { ...refuse(SUCCESS), replayed: true };
    }
    findings.push(
      finding(
        'TRANSACTION_REUSED',
        `transaction_id ${req.transaction_id} was already applied to a different ${known.event_type} of ${known.user_id}`,
        '/transaction_id',
      ),
    );
    return refuse(INVALID);
  }

  if (!existing && !config.autoCreatePlayers) {
    findings.push(finding('PLAYER_UNKNOWN', `unknown player ${req.user_id} and auto_create_players is false`, '/user_id'));
    return refuse(INVALID);
  }
  if (!existing && view.playersFull) {
    findings.push(
      finding(
        'PLAYER_LIMIT',
        `unknown player ${req.user_id}: this workspace holds as many players as it may; reuse a player or reset it`,
        '/user_id',
      ),
    );
    return refuse(INVALID);
  }
  const player: Player = existing ?? { user_id: req.user_id, balance: config.defaultBalance, currency: config.defaultCurrency };
  const event = eventOf(req);
  const outcome = event.decide(req, { view, player, isNew: !existing, config, findings });
  // (an event of this spec refuses with one of its codes)
  if (typeof outcome === 'string') return refuse(outcome as Code, outcome === NOT_ENOUGH_BALANCE ? player.balance : existing?.balance);

  const after = balanceAfter(player, outcome);
  // The player's own user_id string and a shared event_type: a retained transaction holds no copies of them.
  // Each shape made whole in one literal: fields added afterwards would live in an array of their
  // own: one more object held per retained transaction.
  const txn: Change = event.round
    ? {
        op: 'txn',
        transaction_id: req.transaction_id,
        user_id: player.user_id,
        event_type: event.type,
        fingerprint,
        // The ledger's row (GET /admin/ledger): money moved by a bet or a settlement; a login moves none.
        game_no: event.gameNo(req),
        currency: player.currency,
        amount: toJsonNumber(after.minus(player.balance).abs()),
        balance_after: toJsonNumber(after),
        applied_at: config.now?.() ?? Date.now(),
      }
    : { op: 'txn', transaction_id: req.transaction_id, user_id: player.user_id, event_type: event.type, fingerprint };
  outcome.push(txn); // (a new array: see EventHandler.decide)
  return { code: SUCCESS, findings, balance: after, balanceBefore: player.balance, replayed: false, changes: outcome };
}

/** The player's balance once the changes are applied. */
function balanceAfter(player: Player, changes: readonly Change[]): Money {
  let balance = player.balance;
  for (const c of changes) if (c.op === 'player' && c.user_id === player.user_id) balance = money(c.balance);
  return balance;
}

/**
 * Whether a request is the one a transaction record was made from. A record written by this version
 * holds the 64-bit hash (fingerprint.ts); one written by an older wallet-sim (a file store's
 * snapshot or log, Redis) holds the sha256 of the canonical JSON, compared the old way: the sha256
 * is computed only for such a record, so a retry of a transaction applied before an upgrade still
 * replays.
 */
function sameRequest(recorded: string, fingerprint: string, req: CallbackRequest): boolean {
  if (recorded.startsWith(FINGERPRINT_MARK)) return recorded === fingerprint;
  if (recorded.length === 0) return false; // (every text starts with the empty one)
  const legacy = legacyFingerprintOf(req);
  // The first of those kept the whole hash (43 characters), later ones its first 16: compare as much as the record holds.
  return legacy.startsWith(recorded) || recorded.startsWith(legacy);
}

/** The fingerprint older wallet-sim versions recorded: the sha256 of the canonical JSON without the timestamp. */
export function legacyFingerprintOf(req: CallbackRequest): string {
  // 96 bits: a collision between two bodies of one transaction_id is out of reach, and a retained
  // transaction costs 16 characters instead of 43.
  return sha256base64url(canonicalBody(req));
}

/**
 * The first 96 bits of the sha256 digest, in base64url: its first 16 characters (12 bytes are whole
 * base64 groups, so this is exactly the 12-byte text). One-shot crypto.hash (Node ≥ 20.12) straight
 * to text is a third of the cost of a Hash object and a Buffer per callback. The two halves are
 * joined into a new string: a slice of 13 characters or more would keep the whole digest's text
 * alive with every retained transaction.
 */
function sha256base64url(text: string): string {
  const digest =
    typeof crypto.hash === 'function'
      ? crypto.hash('sha256', text, 'base64url')
      : crypto.createHash('sha256').update(text).digest('base64url');
  return [digest.slice(0, 8), digest.slice(8, 16)].join('');
}
