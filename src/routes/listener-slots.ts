/**
 * The listeners (server-sent event streams) a server holds at once, over every route that opens
 * one: the journal's events and, in hosted mode, the tenants' probe runs. One budget for all, so
 * that streams of every kind together never hold more than --max-listeners connections (callbacks
 * keep the rest: docs/limits.md).
 */
export class ListenerSlots {
  private held = 0;

  constructor(readonly max: number) {}

  /** Every slot is held: one more listener is refused (503 LISTENERS_FULL). */
  get full(): boolean {
    return this.held >= this.max;
  }

  /** Takes a slot (the caller checked `full`); `give` hands it back once the stream ends. */
  take(): void {
    this.held++;
  }

  give(): void {
    this.held--;
  }
}
