import { randomUUID } from 'node:crypto';
import type { ReportSession } from '../protocol/types.generated.js';
import type { Grader } from './grader.js';
import { LOGGED_IN } from './grader.js';
import { mark, marked } from './model.js';
import { newGrader } from './grade.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import { WalletGrader, type WalletGraderOptions } from './wallet/wallet-grader.js';

declare module '../core/exchange.js' {
  /** The simulator's `grading` is a GradingSession. */
  interface ConsumerTypes {
    gradingSession: GradingSession;
  }
}

/**
 * A grading session: it begins at start-up and at every reset, and grades only what arrived in it.
 * A callback holds the session it arrived in, so a reply written after a reset goes to the session
 * that is over, never to the new one.
 */
export class GradingSession {
  readonly info: ReportSession;
  readonly grader: Grader;
  /** Proxy mode (--upstream): the operator's wallet graded from the upstream's replies; absent otherwise. */
  readonly wallet?: WalletGrader;

  constructor(thresholds: Thresholds, seed: number | null, now = Date.now(), carried?: Grader, wallet?: WalletGraderOptions) {
    this.info = { id: randomUUID().slice(0, 8), started_at: new Date(now).toISOString(), seed };
    this.grader = newGrader(thresholds);
    if (wallet) this.wallet = new WalletGrader(wallet);
    // A session begun by clearing the journal keeps the wallet: its logged-in players stay logged in.
    if (carried) logIn(this.grader, loggedIn(carried));
    if (carried) this.grader.resumed = carried.resumed;
  }
}

/** The players a grader holds logged in. */
export const loggedIn = (grader: Grader): string[] => [...grader.players.values()].flatMap((p) => (marked(p, LOGGED_IN) ? [p.user] : []));

/** Marks players logged in (a session begun by clearing the journal keeps the old one's). */
export function logIn(grader: Grader, users: Iterable<string>): void {
  for (const user of users) mark(grader.player(user), LOGGED_IN);
}
