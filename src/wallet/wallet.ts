import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { amountProblem, balanceProblem, type Money, money, sum, toJsonNumber, ZERO } from '../money.js';
import type { Code } from '../protocol/codes.js';
import { type Finding, finding, hasErrors } from '../protocol/findings.js';
import type { BetRequest, BetResultRequest, CallbackRequest } from '../protocol/types.generated.js';
import type { Store } from '../store/store.js';
import { resultDetailFindings } from './result-detail.js';
import { type Change, type Player, type Round, WalletState, playerChange, roundChange, roundKey } from './state.js';

/** Bets one request may carry, and a round may hold (R3 BETS_TOO_MANY beyond): no callback's cost grows without bound. */
export const MAX_BETS_PER_REQUEST = 500;
export const MAX_BETS_PER_ROUND = 2000;

const EVENT_TYPES = { login: 'login', bet: 'bet', bet_result: 'bet_result' } as const;

export interface WalletConfig {
  /** Fraction digits allowed for a currency. */
  scale(currency: string): number;
  defaultCurrency: string;
  defaultBalance: Money;
  autoCreatePlayers: boolean;
}

/** What the wallet decided for one well-formed, authenticated callback. */
export interface Decision {
  code: Code;
  /** The player's balance after the callback (absent when the player is unknown). */
  balance?: Money;
  balanceBefore?: Money;
  replayed: boolean;
  /** Resolves when the decision's changes (or, for a replay, the original's) are durable. */
  durable: Promise<void>;
}

/**
 * The rules of the money (DESIGN.md "Wallet rules"). `decide` is synchronous from the first read to
 * the last write, so two callbacks can never interleave their read-modify-write: that is the whole
 * concurrency story, and why the balance can never go negative through bets.
 */
export class Wallet {
  constructor(readonly state: WalletState, private readonly store: Store, public config: WalletConfig) {}

  /** Decides one callback, applies its changes in memory and starts making them durable. */
  decide(req: CallbackRequest, findings: Finding[]): Decision {
    const fingerprint = fingerprintOf(req);
    const known = this.state.transactions.get(req.transaction_id);
    const existing = this.state.players.get(req.user_id);
    if (!known && this.state.mayHaveForgotten(req.transaction_id)) {
      findings.push(finding('TRANSACTION_EXPIRED', `transaction_id ${req.transaction_id} may belong to a transaction applied long ago and forgotten (--retain-transactions): refused so that it is never applied twice; send new callbacks with new transaction_ids`, '/transaction_id'));
      return this.reject('R3', existing);
    }
    if (known) {
      // A record kept by an older wallet-sim holds the whole hash: compare as much as it holds.
      if (fingerprint.startsWith(known.fingerprint) || known.fingerprint.startsWith(fingerprint)) {
        findings.push(finding('TRANSACTION_REPLAYED', `transaction_id ${req.transaction_id} was already applied: replayed, nothing changed`));
        return { code: 'R0', balance: existing?.balance, balanceBefore: existing?.balance, replayed: true, durable: this.store.flush() };
      }
      findings.push(finding('TRANSACTION_REUSED', `transaction_id ${req.transaction_id} was already applied to a different ${known.event_type} of ${known.user_id}`, '/transaction_id'));
      return this.reject('R3', existing);
    }

    let player = existing;
    if (!player) {
      if (!this.config.autoCreatePlayers) {
        findings.push(finding('PLAYER_UNKNOWN', `unknown player ${req.user_id} and auto_create_players is false`, '/user_id'));
        return this.reject('R3', undefined);
      }
      player = { user_id: req.user_id, balance: this.config.defaultBalance, currency: this.config.defaultCurrency };
    }

    const before = player.balance;
    let changes: Change[] | Code;
    switch (req.event_type) {
      case 'login': changes = existing ? [] : [playerChange(player)]; break; // only a new player is a change
      case 'bet': changes = this.bet(req, player, findings); break;
      case 'bet_result': changes = this.settle(req, player, findings); break;
    }
    if (typeof changes === 'string') return this.reject(changes, existing, changes === 'R4' ? player.balance : undefined);

    // The player's own user_id string and a shared event_type: a retained transaction holds no copies of them.
    changes.push({ op: 'txn', transaction_id: req.transaction_id, user_id: player.user_id, event_type: EVENT_TYPES[req.event_type], fingerprint, ...(req.event_type === 'bet_result' && { game_no: req.data.game_no }) });
    const durable = this.commit(changes);
    return { code: 'R0', balance: this.state.players.get(req.user_id)?.balance, balanceBefore: before, replayed: false, durable };
  }

  /** Applies changes in memory now and hands them to the store. */
  commit(changes: Change[]): Promise<void> {
    for (const c of changes) this.state.apply(c);
    const durable = this.store.commit(changes);
    durable.catch((e: Error) => {
      this.failure ??= `the store failed (${e.message}); restart wallet-sim: it recovers what was acknowledged`;
    });
    return durable;
  }

  /**
   * Set once a store write fails: memory then holds a change the disk does not, so nothing more
   * may be answered from it (callbacks get R1, /health 503) until a restart.
   */
  failure?: string;

  private reject(code: Code, player: Player | undefined, balance = player?.balance): Decision {
    // A refusal is final too: it waits until the state it was decided on (earlier callbacks'
    // changes still in the store's queue) is durable, like an R0.
    return { code, balance, balanceBefore: player?.balance, replayed: false, durable: this.store.flush() };
  }

  private bet(req: BetRequest, player: Player, findings: Finding[]): Change[] | Code {
    const d = req.data;
    const total = this.amount(d.total_bet_amount, d.currency, '/data/total_bet_amount', findings);
    const key = roundKey(req.user_id, d.game_no);
    const round = this.state.rounds.get(key);
    const settled = this.state.settled.has(key);
    if (d.bets.length > MAX_BETS_PER_REQUEST) {
      findings.push(finding('BETS_TOO_MANY', `${d.bets.length} bets in one request; at most ${MAX_BETS_PER_REQUEST} are accepted: split them over several bet callbacks`, '/data/bets'));
      return 'R3';
    }
    if ((round?.bets.size ?? 0) + d.bets.length > MAX_BETS_PER_ROUND) {
      findings.push(finding('BETS_TOO_MANY', `round ${d.game_no} would hold ${(round?.bets.size ?? 0) + d.bets.length} bets; a round holds at most ${MAX_BETS_PER_ROUND}`, '/data/bets'));
    }
    if (!round && !settled && this.state.mayHaveForgottenRound(req.user_id, d.game_no)) {
      findings.push(finding('ROUND_EXPIRED', `round ${d.game_no} may be a settled round forgotten long ago (--retain-transactions): no more bets on it; use a new game_no`, '/data/game_no'));
    }
    const seen = new Set<string>();
    const bets = d.bets.map((b, i) => {
      const at = `/data/bets/${i}`;
      if (seen.has(b.bet_index) || round?.bets.has(b.bet_index)) findings.push(finding('BET_INDEX_REPEATED', `bet_index ${b.bet_index} is already in round ${d.game_no}`, `${at}/bet_index`));
      seen.add(b.bet_index);
      return { index: b.bet_index, type: b.bet_type, amount: this.amount(b.bet_amount, d.currency, `${at}/bet_amount`, findings) };
    });
    const stake = sum(bets.map((b) => b.amount));
    if (!total.eq(stake)) findings.push(finding('TOTAL_MISMATCH', `total_bet_amount ${total.toFixed()} != sum of bets[].bet_amount ${stake.toFixed()}`, '/data/total_bet_amount'));
    findings.push(...currencyFindings(d.currency, player, round));
    if (settled) findings.push(finding('ROUND_SETTLED', `round ${d.game_no} is already settled: no more bets`, '/data/game_no'));
    if (hasErrors(findings)) return 'R3';
    if (player.balance.lt(total)) return 'R4';

    const added: [string, string, string][] = bets.map((b) => [b.index, b.type, toJsonNumber(b.amount)]);
    return [playerChange({ ...player, balance: player.balance.minus(total) }), { op: 'bets', user_id: req.user_id, game_no: d.game_no, currency: d.currency, bets: added }];
  }

  private settle(req: BetResultRequest, player: Player, findings: Finding[]): Change[] | Code {
    const d = req.data;
    const total = this.amount(d.total_bet_amount, d.currency, '/data/total_bet_amount', findings);
    const winloss = this.amount(d.total_winloss, d.currency, '/data/total_winloss', findings);
    const key = roundKey(req.user_id, d.game_no);
    // Only an open round is checked against: a settled one has nothing left to compare.
    const round = this.state.rounds.get(key);
    const settled = this.state.settled.has(key);
    if (settled) findings.push(finding('ROUND_SETTLED', `round ${d.game_no} is already settled`, '/data/game_no'));
    if (d.bet_results.length > MAX_BETS_PER_ROUND) {
      findings.push(finding('BETS_TOO_MANY', `${d.bet_results.length} bet_results; a round holds at most ${MAX_BETS_PER_ROUND} bets`, '/data/bet_results'));
      return 'R3';
    }
    if (!round && !settled && this.state.mayHaveForgottenRound(req.user_id, d.game_no)) {
      findings.push(finding('ROUND_EXPIRED', `round ${d.game_no} may be a settled round forgotten long ago (--retain-transactions): it cannot be settled again`, '/data/game_no'));
    } else if (!round && !settled) findings.push(finding('ROUND_UNKNOWN', `no open round ${d.game_no} for player ${req.user_id}`, '/data/game_no'));
    findings.push(...currencyFindings(d.currency, player, round));
    if (round && !total.eq(round.stake)) findings.push(finding('STAKE_MISMATCH', `total_bet_amount ${total.toFixed()} != the round's stake ${round.stake.toFixed()}`, '/data/total_bet_amount'));

    const seen = new Set<string>();
    const results = d.bet_results.map((r, i) => {
      const at = `/data/bet_results/${i}`;
      const amount = this.amount(r.bet_amount, d.currency, `${at}/bet_amount`, findings);
      const wl = this.amount(r.winloss, d.currency, `${at}/winloss`, findings);
      if (seen.has(r.bet_index)) findings.push(finding('BET_INDEX_REPEATED', `bet_index ${r.bet_index} appears twice in bet_results`, `${at}/bet_index`));
      seen.add(r.bet_index);
      const placed = round?.bets.get(r.bet_index);
      if (round && !placed) findings.push(finding('BET_INDEX_UNKNOWN', `bet_index ${r.bet_index} was never bet in round ${d.game_no}`, `${at}/bet_index`));
      if (placed && !placed.bet_amount.eq(amount)) findings.push(finding('BET_MISMATCH', `bet_amount ${amount.toFixed()} != the ${placed.bet_amount.toFixed()} bet on bet_index ${r.bet_index}`, `${at}/bet_amount`));
      if (placed && placed.bet_type !== r.bet_type) findings.push(finding('BET_MISMATCH', `bet_type ${r.bet_type} != the ${placed.bet_type} bet on bet_index ${r.bet_index}`, `${at}/bet_type`));
      if (wl.lt(amount.neg())) findings.push(finding('WINLOSS_BELOW_STAKE', `winloss ${wl.toFixed()} loses more than bet_amount ${amount.toFixed()}`, `${at}/winloss`));
      return { amount, wl };
    });
    const staked = sum(results.map((r) => r.amount));
    const net = sum(results.map((r) => r.wl));
    if (!winloss.eq(net)) findings.push(finding('TOTAL_MISMATCH', `total_winloss ${winloss.toFixed()} != sum of bet_results[].winloss ${net.toFixed()}`, '/data/total_winloss'));
    if (!total.eq(staked)) findings.push(finding('TOTAL_MISMATCH', `total_bet_amount ${total.toFixed()} != sum of bet_results[].bet_amount ${staked.toFixed()}`, '/data/total_bet_amount'));
    findings.push(...resultDetailFindings(d.result_detail));
    if (hasErrors(findings) || !round) return 'R3';

    const credit = total.plus(winloss);
    const after = player.balance.plus(credit);
    const tooLarge = balanceProblem(after, player.currency, this.config.scale(player.currency));
    if (tooLarge) {
      findings.push(finding('AMOUNT_TOO_LARGE', `the settlement would make the balance ${tooLarge.message}; nothing was credited`, '/data/total_winloss'));
      return 'R3';
    }
    return [playerChange({ ...player, balance: after }), roundChange({ ...round, bets: new Map(), settled: true })]; // a settled round keeps no bets: history stays small
  }

  /** An amount as an exact decimal; more fraction digits than the currency allows is a finding. */
  private amount(n: number, currency: string, pointer: string, findings: Finding[]): Money {
    if (!Number.isFinite(n)) {
      findings.push(finding('AMOUNT_NOT_FINITE', `${n} is not a finite amount`, pointer));
      return ZERO;
    }
    const m = money(n);
    const problem = amountProblem(m, currency, this.config.scale(currency));
    if (problem) findings.push(finding(problem.code, problem.message, pointer));
    return m;
  }
}

/**
 * The currency must be the player's, and the round's: the player's may have been changed (admin
 * API, scenario) since the round was opened, and a round is staked and settled in one currency.
 */
function currencyFindings(currency: string, player: Player, round: Round | undefined): Finding[] {
  const out: Finding[] = [];
  if (currency !== player.currency) out.push(finding('CURRENCY_MISMATCH', `currency ${currency} differs from the player's ${player.currency}`, '/data/currency'));
  if (round && currency !== round.currency) out.push(finding('CURRENCY_MISMATCH', `currency ${currency} differs from round ${round.game_no}'s ${round.currency}`, '/data/currency'));
  return out;
}

/** Identity of a request for idempotency: its canonical JSON without the timestamp. */
export function fingerprintOf(req: CallbackRequest): string {
  const { timestamp: _ignored, ...rest } = req;
  // 96 bits: a collision between two bodies of one transaction_id is out of reach, and a retained
  // transaction costs 16 characters instead of 43.
  // (From 12 bytes, not a slice of the whole hash's text, which would keep that text alive.)
  return createHash('sha256').update(stringify(rest) ?? '').digest().subarray(0, 12).toString('base64url');
}
