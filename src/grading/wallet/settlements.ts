import { roundKey } from '../../ledger/state.js';
import { roundEffectOf } from '../../ledger/round-effects.js';
import type { WalletExchange } from '../../core/exchange.js';

/**
 * Per round, the first settlement sent to the operator's wallet (its transaction_id and body). A
 * correct wallet must apply that one (or replay it); another, under a new transaction_id or with a
 * changed body, it may rightly refuse (the first may have settled the round unseen: a lost reply).
 */
export class FirstSettlements {
  private readonly firsts = new Map<string, string>();

  constructor(private readonly cap: number) {}

  /**
   * Records `x` when it is its round's first settlement; whether it is that one (or an identical
   * resend of it). `digest` (of the body) is asked for settlements only.
   */
  see(x: WalletExchange, game: string | undefined, digest: () => string): boolean {
    if (roundEffectOf(x.event) !== 'settles' || game === undefined || x.user === undefined) return false;
    const round = roundKey(x.user, game);
    const key = `${x.tx} ${digest()}`;
    if (!this.firsts.has(round)) {
      if (this.firsts.size >= this.cap) this.firsts.delete(this.firsts.keys().next().value!);
      this.firsts.set(round, key);
    }
    return this.firsts.get(round) === key;
  }
}
