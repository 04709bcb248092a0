/**
 * Proxy mode on a shared store: a player's arrivals folded in the order the callbacks arrived, not
 * the order their answers were written to the stream. A callback waits at the upstream before its
 * arrival is written; a provider's resend of it, answered meanwhile (by this process or another),
 * would otherwise be graded as sent before its first attempt (a negative gap: a premature retry,
 * the provider blamed for the wallet's slowness). The stream says when each callback went to the
 * upstream (`ws`) and when its answer came (`wa`): an arrival of a player with a callback sent to
 * the upstream before it and not answered yet waits, with its attempt's later events, until that
 * answer; the one it waited for is folded in its place first. Every process folds the same stream
 * the same way, so each still gives the same report.
 *
 * A callback at the upstream also holds the session's clock at its arrival (`clock`), as the local
 * feed's arrivals being decided do: its arrival event is written only once the upstream answered,
 * and a window it may close (a lost reply's resend arriving in time) must not be judged without it.
 */
export class UpstreamOrder<E> {
  /** Per player: the callbacks at the upstream (provisional id → when sent). */
  private readonly atUpstream = new Map<string, Map<number, number>>();
  /** Per player: the events held, in stream order (with the attempt key of an arrival's). */
  private readonly held = new Map<string, { e: E; key?: string }[]>();
  /** The attempts whose arrival is held: their player. */
  private readonly heldKeys = new Map<string, string>();
  /** Every callback at the upstream (provisional id): its hold on the clock, and when it was sent. */
  private readonly holds = new Map<number, { ticket: number; sentAt: number }>();

  constructor(
    private readonly fold: (e: E) => void,
    /** The session's clock (the current session's): held at a time (a ticket), then let go. */
    private readonly clock?: () => { expect(at: number): number; settle(ticket: number): void },
    /** A callback at the upstream longer than this is taken as never answered (its process gone). */
    private readonly abandonMs = ABANDON_MS,
  ) {}

  /** A callback that arrived at `arrivedAt` went to the upstream at `at` as `id`. */
  sent(user: string | undefined, id: number, at: number, arrivedAt = at): void {
    if (this.clock) this.holds.set(id, { ticket: this.clock().expect(arrivedAt), sentAt: at });
    if (user === undefined) return;
    let flights = this.atUpstream.get(user);
    if (!flights) this.atUpstream.set(user, (flights = new Map()));
    flights.set(id, at);
  }

  /** The upstream answered (or gave up on) the callback sent as `id`: its player's events held for it are folded. */
  answered(user: string | undefined, id: number): void {
    this.letGo(id);
    if (user === undefined) return;
    const flights = this.atUpstream.get(user);
    if (!flights?.delete(id)) return;
    if (flights.size === 0) this.atUpstream.delete(user);
    this.release(user);
  }

  /** Whether an arrival (attempt `key`) waits: a callback of its player went upstream before it and is unanswered. */
  arrival(e: E, key: string | undefined, user: string, at: number): boolean {
    if (!this.earlierAtUpstream(user, at)) return false;
    this.hold(user, e, key);
    return true;
  }

  /** Whether a later event of an attempt (its closing, its completion) waits with the attempt's arrival. */
  ofAttempt(e: E, key: string): boolean {
    const user = this.heldKeys.get(key);
    if (user === undefined) return false;
    this.held.get(user)!.push({ e });
    return true;
  }

  /** The clock is no longer held for callbacks at the upstream longer than `abandonMs` by `now` (their process gone). */
  abandon(now: number): void {
    for (const [id, { sentAt }] of this.holds) if (sentAt < now - this.abandonMs) this.letGo(id);
  }

  /** A new session (its own clock): nothing waits. */
  clear(): void {
    this.atUpstream.clear();
    this.held.clear();
    this.heldKeys.clear();
    this.holds.clear();
  }

  private letGo(id: number): void {
    const hold = this.holds.get(id);
    if (!hold) return;
    this.holds.delete(id);
    this.clock!().settle(hold.ticket);
  }

  private earlierAtUpstream(user: string, at: number): boolean {
    const flights = this.atUpstream.get(user);
    if (!flights) return false;
    let earlier = false;
    let abandoned = false;
    for (const [id, sentAt] of flights) {
      if (sentAt < at - this.abandonMs) abandoned = flights.delete(id);
      else if (sentAt < at) earlier = true;
    }
    if (flights.size === 0) this.atUpstream.delete(user);
    // What waited for a callback never answered is folded now, before this arrival (it came first).
    if (abandoned && !earlier) this.release(user);
    return earlier;
  }

  private hold(user: string, e: E, key: string | undefined): void {
    const list = this.held.get(user);
    if (list) list.push({ e, key });
    else this.held.set(user, [{ e, key }]);
    if (key !== undefined) this.heldKeys.set(key, user);
  }

  /** Folds a player's held events again, in order (some may wait on, for another callback still at the upstream). */
  private release(user: string): void {
    const list = this.held.get(user);
    if (!list) return;
    this.held.delete(user);
    for (const { key } of list) if (key !== undefined) this.heldKeys.delete(key);
    for (const { e } of list) this.fold(e);
  }
}

/** Twice the default --upstream-timeout-ms: past it, a callback sent upstream was answered or never will be. */
const ABANDON_MS = 60_000;
