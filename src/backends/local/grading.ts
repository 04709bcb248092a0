import type { GradingFeed } from '../../grading/feed.js';
import { GradingSession } from '../../grading/session.js';
import type { Thresholds } from '../../grading/thresholds.js';
import type { Grading } from '../backend.js';

/** The grading of a single process: the session's grader folds each event at once. */
export class LocalGrading implements Grading {
  session: GradingSession;

  constructor(
    private thresholds: Thresholds,
    private readonly seed: () => number,
  ) {
    this.session = new GradingSession(thresholds, seed());
  }

  get feed(): GradingFeed {
    return this.session.grader as GradingFeed;
  }

  current(): Promise<GradingSession> {
    return Promise.resolve(this.session);
  }

  begin(keepLogins: boolean): Promise<void> {
    const carried = keepLogins ? this.session.grader : undefined;
    this.session = new GradingSession(this.thresholds, this.seed(), Date.now(), carried);
    return Promise.resolve();
  }

  use(thresholds: Thresholds): void {
    this.thresholds = thresholds;
    this.session.grader.t = thresholds;
  }
}
