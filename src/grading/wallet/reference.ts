import type { Money } from '../../kernel/money.js';
import type { Change } from '../../ledger/change.js';
import { LocalStore } from '../../ledger/local-store.js';
import { playerChange, roundChange, roundKey, WalletState } from '../../ledger/state.js';
import { NO_PERSISTENCE, type RecordKeys } from '../../ledger/store.js';
import { eventOf } from '../../protocol/seed/index.js';
import { SUCCESS } from '../../protocol/seed/codes.js';
import type { CallbackRequest } from '../../protocol/types.generated.js';
import type { WalletConfig } from '../../wallet/decide.js';
import { answerOf, raised, type ReferenceAnswer, UNKNOWN_BALANCE } from './reference-answer.js';

export type { ReferenceAnswer, RefusalKind } from './reference-answer.js';

/**
 * The reference: wallet-sim's own wallet, run beside an operator's wallet as a shadow ledger, to say
 * what a correct wallet would have answered. It is the code `--store memory` runs — the ledger's
 * state and store (src/ledger/) and the money rules (`decide`, src/wallet/decide.ts) — over an
 * in-process state that holds only the players the operator's wallet reported on. A player's
 * balance is seeded from the first balance the operator's wallet reports, and set again to what it
 * reports whenever the two part (one defect, one failure: the next callback is judged afresh).
 */

/** Transactions the reference keeps for idempotency. */
const RETAIN = 50_000;

/** The records one callback reads: its player, its round, its transaction_id. */
export const keysOf = (req: CallbackRequest): RecordKeys => ({
  user_id: req.user_id,
  transaction_id: req.transaction_id,
  game_no: eventOf(req).gameNo(req),
});

/** The round of a callback (its key), if it has one. */
export function roundOf(req: CallbackRequest): string | undefined {
  const game = eventOf(req).gameNo(req);
  return game === undefined ? undefined : roundKey(req.user_id, game);
}

/** The currency a callback names, if it names one. */
const currencyOf = (req: CallbackRequest): string | undefined => {
  const c = (req as { data?: { currency?: unknown } }).data?.currency;
  return typeof c === 'string' ? c : undefined;
};

export class ReferenceLedger {
  private readonly store = new LocalStore('reference', new WalletState(RETAIN), NO_PERSISTENCE);
  /** Players whose balance the operator's wallet has not reported yet (or that may have moved unseen). */
  private readonly unknown = new Set<string>();
  /** Players whose currency is a guess (seeded by a login): the first round callback names it. */
  private readonly provisional = new Set<string>();
  /** Rounds the operator's wallet moved where the reference would not: not judged from then on. */
  private readonly tainted = new Set<string>();
  /** The reference's own balance where the wallet's last reply misreported it (./serial.ts). */
  private readonly disputes = new Map<string, Money>();
  /**
   * Per player, the one callback without a readable answer since its balance was last known, and
   * how it would move it (null: more than one, or the balance unknown for another reason).
   */
  private readonly unsure = new Map<string, { tx: string; move: Money } | null>();
  /** Such callbacks, as the next balance the wallet reported showed them: applied, or not. */
  private readonly resolved = new Map<string, boolean>();

  /**
   * `closedWorld`: every round of the players is the reference's to see from its first bet (probe
   * plays its own); else (proxy mode) a round may have begun before the session, so what rests on
   * its bets before (a round never bet, a stake or bet_index that differs) is not judged.
   */
  constructor(
    private config: WalletConfig,
    private readonly closedWorld = false,
  ) {}

  use(config: WalletConfig): void {
    this.config = config;
  }

  private get state(): WalletState {
    return this.store.state;
  }

  /** The player's balance as the reference holds it, when known. */
  balance(user: string): Money | undefined {
    if (this.unknown.has(user)) return undefined;
    return this.state.players.get(user)?.balance;
  }

  /** The operator's wallet reported this balance: the reference takes it (seeds the player, or follows the wallet). */
  report(user: string, balance: Money): void {
    const p = this.state.players.get(user);
    const u = this.unsure.get(user);
    if (u !== undefined) {
      // The reference's figure has all but the unsure callback's move: the reported balance says whether the wallet applied it.
      this.unsure.delete(user);
      if (u && p && (balance.eq(p.balance) || balance.eq(p.balance.plus(u.move)))) this.settle(u.tx, !balance.eq(p.balance));
    }
    this.state.apply(playerChange({ user_id: user, balance, currency: p?.currency ?? this.config.defaultCurrency }));
    if (!p) this.provisional.add(user);
    this.unknown.delete(user);
    this.disputes.delete(user);
  }

  /** The player's balance may have moved unseen (a callback without a readable answer). */
  forget(user: string): void {
    if (this.state.players.has(user)) this.unknown.add(user);
    this.disputes.delete(user);
    if (this.unsure.has(user)) this.unsure.set(user, null);
  }

  /**
   * A callback without a readable answer (`ref`: what applying it would do), after `forget`: the
   * next balance reported says whether the wallet applied it, when nothing else is unsure.
   */
  unsureOf(user: string, tx: string, ref: ReferenceAnswer): void {
    const p = this.state.players.get(user);
    this.unsure.set(user, this.unsure.has(user) || !p ? null : { tx, move: ref.balance.minus(p.balance) });
  }

  /** Whether the wallet applied a callback that got no readable answer, as a balance reported since showed (undefined: not known). */
  appliedUnseen(tx: string): boolean | undefined {
    return this.resolved.get(tx);
  }

  /** The balances the player may have now: the known one; or, with one callback unsure, with and without its move. */
  candidates(user: string): Money[] | undefined {
    const balance = this.balance(user);
    if (balance) return [balance];
    const u = this.unsure.get(user);
    const p = this.state.players.get(user);
    return u && p ? [p.balance, p.balance.plus(u.move)] : undefined;
  }

  private settle(tx: string, applied: boolean): void {
    if (this.resolved.size >= RETAIN) this.resolved.delete(this.resolved.keys().next().value!);
    this.resolved.set(tx, applied);
  }

  /**
   * The wallet's reply misreported the balance, which the reference now follows (`report`): its own
   * figure is kept beside until the next report, so that a wallet whose ledger was right after all
   * (it only wrote the reply wrong) is not failed a second time by its next, truthful reply.
   */
  dispute(user: string, own: Money): void {
    this.disputes.set(user, own);
  }

  disputed(user: string): Money | undefined {
    return this.disputes.get(user);
  }

  /** The currency a callback moves money in (its own, else its player's) and that currency's fraction digits. */
  scaleOf(req: CallbackRequest): { currency: string; scale: number } {
    const currency = currencyOf(req) ?? this.state.players.get(req.user_id)?.currency ?? this.config.defaultCurrency;
    return { currency, scale: this.config.scale(currency) };
  }

  /** Whether the scale the reference uses for the callback's currency is the configuration's own (not a default guess). */
  declaresScale(req: CallbackRequest): boolean {
    const currency = currencyOf(req);
    return currency === undefined || this.config.declared?.(currency) !== false;
  }

  /** The callback touches a round the reference no longer follows. */
  isTainted(req: CallbackRequest): boolean {
    const round = roundOf(req);
    return round !== undefined && this.tainted.has(round);
  }

  /** The wallet applied a callback the reference cannot read (invalid, other credentials): its round is no longer followed. */
  taint(user: string, gameNo: string): void {
    this.tainted.add(roundKey(user, gameNo));
  }

  /** Makes sure the player is there (with a placeholder balance until one is reported) and its currency named. */
  private ready(req: CallbackRequest): void {
    const user = req.user_id;
    const currency = currencyOf(req);
    const p = this.state.players.get(user);
    // A player's currency is the one of the callbacks it names until the wallet applies one of them.
    if (!p) {
      this.state.apply(playerChange({ user_id: user, balance: UNKNOWN_BALANCE, currency: currency ?? this.config.defaultCurrency }));
      this.unknown.add(user);
      this.provisional.add(user);
    } else if (currency !== undefined && this.provisional.has(user) && p.currency !== currency)
      this.state.apply(playerChange({ ...p, currency }));
  }

  /** What the reference would answer to `req` now (nothing applied). */
  decide(req: CallbackRequest): ReferenceAnswer {
    this.ready(req);
    return answerOf(this.store.view(keysOf(req)), req, this.config, this.closedWorld);
  }

  /** Applies what a decision changes (a bet applied names its player's currency for good). */
  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      this.state.apply(c);
      if (c.op === 'bets') this.provisional.delete(c.user_id);
    }
  }

  /**
   * The operator's wallet applied `req` (R0) where the reference refuses it: follow it as far as the
   * money rules can (a bet short of balance is applied as if it were covered), else leave its round
   * unjudged from now on. Its balance is then what the wallet reports, or unknown.
   */
  follow(req: CallbackRequest, reported: Money | undefined): void {
    this.ready(req);
    const view = this.store.view(keysOf(req));
    const forced = view.player
      ? answerOf({ ...view, player: { ...view.player, balance: raised(view.player.balance) } }, req, this.config, this.closedWorld)
      : undefined;
    const event = eventOf(req);
    const game = event.gameNo(req);
    if (forced?.code === SUCCESS) this.apply(forced.changes);
    else if (event.round === 'settles' && game !== undefined)
      // The wallet settled it: settled it stays (a second settlement is judged).
      this.state.apply({ op: 'round', user_id: req.user_id, game_no: game, currency: '', stake: '0', bets: [], settled: true });
    else if (game !== undefined) this.tainted.add(roundKey(req.user_id, game));
    if (reported !== undefined) this.report(req.user_id, reported);
    else this.forget(req.user_id);
  }

  /**
   * A scratch copy of the records `reqs` read, for a search over orders of them: `at(path)` is the
   * reference after `path`'s changes, decided with the same code.
   */
  scratch(reqs: readonly CallbackRequest[]): Scratch {
    for (const r of reqs) this.ready(r);
    const base: Change[] = [];
    const players = new Set<string>();
    const rounds = new Set<string>();
    const txs = new Set<string>();
    const s = this.state;
    for (const req of reqs) {
      const { user_id, transaction_id, game_no } = keysOf(req);
      if (!players.has(user_id)) {
        players.add(user_id);
        const p = s.players.get(user_id);
        if (p) base.push(playerChange(p));
      }
      if (game_no !== undefined) {
        const key = roundKey(user_id, game_no);
        if (!rounds.has(key)) {
          rounds.add(key);
          const r = s.rounds.get(key);
          if (r) base.push(roundChange(r));
          if (s.settled.has(key)) base.push({ op: 'round', user_id, game_no, currency: '', stake: '0', bets: [], settled: true });
        }
      }
      if (!txs.has(transaction_id)) {
        txs.add(transaction_id);
        const t = s.transactions.get(transaction_id);
        if (t) base.push({ ...t, op: 'txn' });
      }
    }
    const { config, closedWorld } = this;
    const view = (path: readonly Change[], req: CallbackRequest) => {
      const state = new WalletState(RETAIN);
      for (const c of base) state.apply(c);
      for (const c of path) state.apply(c);
      return new LocalStore('scratch', state, NO_PERSISTENCE).view(keysOf(req));
    };
    return {
      decide: (path, req) => answerOf(view(path, req), req, config, closedWorld),
      follow(path, req, reported) {
        // As `follow` does: a short bet applied as if covered, a settlement of a round not seen settles it.
        const v = view(path, req);
        if (!v.player) return undefined;
        const forced = answerOf({ ...v, player: { ...v.player, balance: raised(v.player.balance) } }, req, config, closedWorld);
        const game = eventOf(req).gameNo(req);
        const changes: Change[] =
          forced.code === SUCCESS
            ? [...forced.changes]
            : eventOf(req).round === 'settles' && game !== undefined
              ? [{ op: 'round', user_id: req.user_id, game_no: game, currency: '', stake: '0', bets: [], settled: true }]
              : [];
        // (none: its round is no longer followed, as `follow` taints it; the caller says so)
        const balance = playerChange({ user_id: req.user_id, balance: reported, currency: v.player.currency });
        return { changes: [...changes, balance], lost: !changes.length };
      },
    };
  }
}

/** The reference over a copy of some records: what it would answer after a path of changes. */
export interface Scratch {
  decide(path: readonly Change[], req: CallbackRequest): ReferenceAnswer;
  /**
   * The changes that follow the wallet's R0 to `req` (with the balance it reported) where the
   * reference refuses it, as `ReferenceLedger.follow` does (`lost`: its round can no longer be
   * followed, only the balance); undefined when the player is not there.
   */
  follow(path: readonly Change[], req: CallbackRequest, reported: Money): { changes: Change[]; lost: boolean } | undefined;
}
