import type { GradingFeed } from './feed.js';
import type { WalletGraderOptions } from './wallet/wallet-grader.js';
import { BatchedFeed } from './batched-feed.js';
import { GradingSession } from './session.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import type { Grading } from '../core/exchange.js';

/**
 * The grading of a single process: the session's grader folds the events of each turn of the event
 * loop (src/grading/batched-feed.ts), and every one of them before the session is read.
 */
export class LocalGrading implements Grading<GradingSession> {
  private folded: GradingSession;
  private batch: BatchedFeed;
  /** The session's feed, with the wallet side in proxy mode. */
  private sessionFeed: GradingFeed;

  constructor(
    private thresholds: Thresholds,
    private readonly seed: () => number,
    private readonly walletOptions: () => WalletGraderOptions | undefined = () => undefined,
  ) {
    this.folded = new GradingSession(thresholds, seed(), Date.now(), undefined, walletOptions());
    this.batch = new BatchedFeed(this.folded.grader);
    this.sessionFeed = feedOf(this.folded, this.batch);
  }

  /** The session with every event so far folded. */
  get session(): GradingSession {
    this.batch.flush();
    return this.folded;
  }

  get feed(): GradingFeed {
    return this.sessionFeed;
  }

  current(): Promise<GradingSession> {
    return Promise.resolve(this.session);
  }

  begin(keepLogins: boolean): Promise<void> {
    const ended = this.session; // every event of it folded
    const carried = keepLogins ? ended.grader : undefined;
    this.folded = new GradingSession(this.thresholds, this.seed(), Date.now(), carried, this.walletOptions());
    this.batch = new BatchedFeed(this.folded.grader);
    this.sessionFeed = feedOf(this.folded, this.batch);
    return Promise.resolve();
  }

  resume(players: readonly string[]): void {
    this.session.grader.resumed = new Set(players);
  }

  use(thresholds: Thresholds): void {
    this.thresholds = thresholds;
    const session = this.session; // what arrived before the change is graded with the thresholds of then
    session.grader.t = thresholds;
    const wallet = this.walletOptions();
    if (wallet) session.wallet?.use(wallet);
  }
}

/** The batched grader; in proxy mode with the wallet side beside it (folded at once). */
function feedOf(session: GradingSession, batch: BatchedFeed): GradingFeed {
  const wallet = session.wallet;
  if (!wallet) return batch;
  return {
    expect: (at) => batch.expect(at),
    settle: (ticket) => batch.settle(ticket),
    player: (ticket, user) => batch.player(ticket, user),
    arrived: (x, ticket) => batch.arrived(x, ticket),
    arrive: (a, ticket) => batch.arrive(a, ticket),
    closed: (attempt, at) => batch.closed(attempt as never, at),
    complete: (attempt, done) => batch.complete(attempt as never, done),
    count: (user, codes) => batch.count(user, codes),
    wallet: {
      sent: (x) => wallet.sent(x),
      answered: (sentAs, x, a) => {
        wallet.rekey(sentAs, x.id);
        wallet.answered(x, a);
      },
    },
  };
}
