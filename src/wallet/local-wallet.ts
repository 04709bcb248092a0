import type { Awaitable } from '../kernel/awaitable.js';
import { eventOf } from '../protocol/seed/index.js';
import { amountProblem, type Money, money } from '../kernel/money.js';
import { hasErrors } from '../protocol/findings.js';
import type { CallbackRequest, RuleThen } from '../protocol/types.generated.js';
import { playerChange } from '../ledger/state.js';
import type { Store, View } from '../ledger/store.js';
import { type Decision, decide, type WalletConfig } from './decide.js';
import type { Outcome, Wallet, WalletCall } from '../core/ports.js';
import { INVALID, UNAUTHORIZED } from '../protocol/seed/codes.js';

/** What the local ledger reads of the simulator: its store, its money rules, and whether the store failed. */
export interface LocalLedger {
  readonly store: Store;
  readonly config: WalletConfig;
  readonly storeFailure: string | undefined;
}

/**
 * The wallet held by wallet-sim itself: the money rules (./decide.ts) over the backend's store, in
 * one store transaction per callback. Served from memory it answers at once, without a promise.
 */
export class LocalWallet implements Wallet {
  constructor(private readonly ledger: LocalLedger) {}

  apply({ intake, then, seal }: WalletCall): Awaitable<Outcome> {
    if (!intake.authenticated) return { code: UNAUTHORIZED };
    const req = intake.request;
    // Not decided: R3, the player's balance as it stands (a store that cannot answer leaves it out).
    if (!req || hasErrors(intake.findings)) return this.refused(intake.echo.user_id);
    const { store, config } = this.ledger;
    const keys = { user_id: req.user_id, transaction_id: req.transaction_id, game_no: eventOf(req).gameNo(req) };
    const decided = store.transact(
      keys,
      (view) => decideWithRule(view, req, then, config),
      seal && ((decision) => seal(outcomeOf(decision))),
    );
    return decided instanceof Promise ? decided.then(outcomeOf) : outcomeOf(decided);
  }

  private refused(user: string | undefined): Awaitable<Outcome> {
    if (user === undefined || this.ledger.storeFailure) return { code: INVALID };
    return this.ledger.store.player(user).then(
      (player) => ({ code: INVALID, balance: player?.balance }),
      () => ({ code: INVALID }),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const outcomeOf = (decision: Decision): Outcome => ({ code: decision.code, decision, balance: decision.balance });

/**
 * The wallet's decision, with what a scenario rule adds: `set_balance` before processing (a change
 * like any other, committed with the decision), a forced `code` instead of the wallet's.
 */
export function decideWithRule(view: View, req: CallbackRequest, then: RuleThen | undefined, config: WalletConfig): Decision {
  const currency = view.player?.currency ?? config.defaultCurrency;
  const set = then?.set_balance === undefined ? undefined : money(then.set_balance);
  // The scenario's check holds every amount to the currency of the players a rule can match; a
  // player of another currency matched anyway (a rule naming USD, a KRW player's bet in USD) keeps
  // its balance: never one its currency cannot hold, never rounded.
  const fits = set !== undefined && !amountProblem(set, currency, config.scale(currency));
  const forced = fits ? { user_id: req.user_id, balance: set, currency } : undefined;
  const seen: View = forced ? { ...view, player: forced } : view;
  const before: Money | undefined = seen.player?.balance;
  // A forced code replaces the wallet's answer, not its judgement: what the caller did wrong (totals,
  // amounts, the round) is still found and journalled, and nothing it decided is applied.
  const judged = decide(seen, req, config);
  const decision: Decision = then?.code
    ? {
        code: then.code,
        // (not a replay's note: the forced answer is no replay)
        findings: judged.replayed ? judged.findings.filter((f) => f.code !== 'TRANSACTION_REPLAYED') : judged.findings,
        balance: before,
        balanceBefore: before,
        replayed: false,
        changes: [],
      }
    : judged;
  return forced ? { ...decision, changes: [playerChange(forced), ...decision.changes] } : decision;
}
