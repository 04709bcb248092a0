import type { GradingFeed } from '../../grading/feed.js';
import type { WalletGraderOptions } from '../../wallet-checks/wallet-grader.js';
import { GradingSession } from '../../grading/session.js';
import type { Thresholds } from '../../grading/thresholds.js';
import type { Grading } from '../backend.js';

/** The grading of a single process: the session's grader folds each event at once. */
export class LocalGrading implements Grading {
  session: GradingSession;
  /** The session's grader, with the wallet side in proxy mode. */
  private sessionFeed: GradingFeed;

  constructor(
    private thresholds: Thresholds,
    private readonly seed: () => number,
    private readonly walletOptions: () => WalletGraderOptions | undefined = () => undefined,
  ) {
    this.session = new GradingSession(thresholds, seed(), Date.now(), undefined, walletOptions());
    this.sessionFeed = feedOf(this.session);
  }

  get feed(): GradingFeed {
    return this.sessionFeed;
  }

  current(): Promise<GradingSession> {
    return Promise.resolve(this.session);
  }

  begin(keepLogins: boolean): Promise<void> {
    const carried = keepLogins ? this.session.grader : undefined;
    this.session = new GradingSession(this.thresholds, this.seed(), Date.now(), carried, this.walletOptions());
    this.sessionFeed = feedOf(this.session);
    return Promise.resolve();
  }

  use(thresholds: Thresholds): void {
    this.thresholds = thresholds;
    this.session.grader.t = thresholds;
    const wallet = this.walletOptions();
    if (wallet) this.session.wallet?.use(wallet);
  }
}

/** The grader itself; in proxy mode with the wallet side beside it (a local fold: at once). */
function feedOf(session: GradingSession): GradingFeed {
  const g = session.grader;
  const wallet = session.wallet;
  if (!wallet) return g as GradingFeed;
  return {
    expect: (at) => g.expect(at),
    settle: (ticket) => g.settle(ticket),
    arrive: (a, ticket) => g.arrive(a, ticket),
    closed: (attempt, at) => g.closed(attempt as never, at),
    complete: (attempt, done) => g.complete(attempt as never, done),
    count: (user, codes) => g.count(user, codes),
    wallet: {
      sent: (x) => wallet.sent(x),
      answered: (sentAs, x, a) => {
        wallet.rekey(sentAs, x.id);
        wallet.answered(x, a);
      },
    },
  };
}
