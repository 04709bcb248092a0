import type { ReadReply } from '../../protocol/seed/reply-read.js';
import type { WalletAnswer, WalletExchange } from './exchange.js';
import type { WalletTally } from './tally.js';

/** R0s held whole while the scenario's credentials are unconfirmed: as many as a check keeps violations of. */
const KEPT = 100;

/**
 * Proxy mode: whether the wallet has accepted the scenario's credentials (any definite answer but
 * R2 to a callback carrying them). Until it has, an R0 to other credentials is held, not failed:
 * when those are the provider's real ones, the scenario's are the typo, not the wallet's fault.
 * Past KEPT they are only counted, per player, with the Api-Ids they carried (a long session with
 * the typo stays bounded).
 */
export class HeldCredentials {
  accepted = false;
  private readonly kept: [WalletExchange, WalletAnswer, ReadReply][] = [];
  private readonly more = new Map<string, number>();
  private readonly apiIds = new Set<string>();

  hold(x: WalletExchange, a: WalletAnswer, reply: ReadReply): void {
    this.apiIds.add(x.sentHeaders.apiId ?? '(none)');
    if (this.kept.length < KEPT) this.kept.push([x, a, reply]);
    else this.more.set(x.user ?? '', (this.more.get(x.user ?? '') ?? 0) + 1);
  }

  /** The scenario's were accepted: what was held is judged now (`judge` each kept one, the rest counted). */
  accept(judge: (x: WalletExchange, a: WalletAnswer, reply: ReadReply) => void, tally: WalletTally): void {
    this.accepted = true;
    for (const [x, a, reply] of this.kept.splice(0)) judge(x, a, reply);
    for (const [user, n] of this.more) tally.violatedUncited(user, n);
    this.more.clear();
  }

  /** How many are held (the players `mine` says), and the Api-Ids they carried. */
  count(mine: (user: string) => boolean): { n: number; apiIds: string[] } {
    let n = this.kept.filter(([x]) => mine(x.user ?? '')).length;
    for (const [user, more] of this.more) if (mine(user)) n += more;
    return { n, apiIds: [...this.apiIds] };
  }
}
