import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Channels } from '../backends/redis/channels.js';
import type { ExchangeFeed, Grading } from '../core/exchange.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import type { Alongside } from '../ledger/store.js';
import type { SharedGrading } from './redis-feed.js';
import type { GradingSession } from './session.js';

/** Reading the session (the dashboard's grading events) starts a fold of what is new at most this often. */
export const FOLD_EVERY_MS = 250;

/**
 * A Redis grading session folded on demand (hosted mode: a session per tenant, thousands in one
 * process). A single-tenant process follows its session's stream on a connection of its own
 * (XREAD BLOCK); this folds only when asked, on the process's shared connections:
 * - a report (`current()`) folds every event not folded yet, every process's, as it always did;
 * - reading `session` starts a fold at most every FOLD_EVERY_MS, so a dashboard watching the
 *   verdict sees other processes' callbacks within a tick;
 * - a new session begun by another process (a reset, a cleared journal) is word on
 *   `grading:events` (the shared subscriber): this process switches at once, so its callbacks go
 *   to the new session's stream, not the finished one's.
 */
export class OnDemandGrading implements Grading<GradingSession> {
  private readonly from = randomUUID();
  private foldedAt = 0;
  private unlisten?: () => void;

  constructor(
    private readonly shared: SharedGrading,
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly channels: Channels,
  ) {}

  /** `grading:events`: {"from": <process>} when a process begins a session. */
  private get channel(): string {
    return `${this.prefix}grading:events`;
  }

  private fold(): void {
    void this.shared.current().catch(() => undefined); // Redis away: the next report folds it
  }

  async join(): Promise<void> {
    await this.shared.join(false);
    this.unlisten = await this.channels.listen(
      this.channel,
      (message) => {
        if ((JSON.parse(message) as { from?: string }).from !== this.from) this.fold();
      },
      () => this.fold(), // a reconnect: a session may have begun meanwhile
    );
  }

  get session(): GradingSession {
    if (Date.now() - this.foldedAt >= FOLD_EVERY_MS) {
      this.foldedAt = Date.now();
      this.fold();
    }
    return this.shared.session;
  }

  get feed(): ExchangeFeed {
    return this.shared.feed;
  }

  current(): Promise<GradingSession> {
    return this.shared.current();
  }

  prepare(): Promise<Alongside> {
    return this.shared.prepare();
  }

  async begin(keepLogins: boolean, written?: Alongside): Promise<void> {
    await this.shared.begin(keepLogins, written);
    await this.client.publish(this.channel, JSON.stringify({ from: this.from })).catch(() => undefined);
  }

  use(thresholds: Thresholds): void {
    this.shared.use(thresholds);
  }

  close(): void {
    this.unlisten?.();
    this.shared.close();
  }
}
