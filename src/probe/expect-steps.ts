import type { Money } from '../kernel/money.js';
import type { Check } from './session.js';

/** A concurrent reply as the steps read it: `attempts` above 1 is a replay (a resend answered R0). */
export interface StepReply {
  balance?: Money;
  balanceText?: string;
  index: number;
  attempts?: number;
}

/**
 * Concurrent replies: each latest_balance must be one step of a serial order, so together they are
 * start + step, start + 2 step, …, start + n step (lost updates or float drift break the set). A
 * reply the probe had to resend for is a replay, which may report the balance as it is when the
 * resend came (later steps included): it is not one of the steps, and the first replies must then
 * be distinct steps among the n.
 */
export function expectSteps(c: Check, replies: StepReply[], start: Money | undefined, step: Money, what: string): void {
  if (start === undefined || replies.some((r) => r.balance === undefined)) return;
  const first = replies.filter((r) => (r.attempts ?? 1) <= 1);
  const replayed = replies.length - first.length;
  const want = replies.map((_, i) => start.plus(step.times(i + 1)));
  // Each first reply takes one step of its own: a multiset inclusion (all of them when none was replayed).
  const free = [...want];
  const same = first.every((r) => {
    const at = free.findIndex((w) => w.eq(r.balance!));
    return at >= 0 && free.splice(at, 1).length === 1;
  });
  const sorted = want.sort((x, y) => x.comparedTo(y)).map((w) => w.toFixed());
  const shown = first.map((r) => r.balanceText).join(', ');
  c.assert(
    'balance-arithmetic',
    same,
    replayed
      ? `${replies.length} concurrent ${what}s of ${step.abs().toFixed()} from ${start.toFixed()}, ${replayed} of them resent (a replay ` +
          `reports the balance when it came, not judged): latest_balance values of the others ${shown}; each must be a different one of ${sorted.join(', ')}`
      : `${replies.length} concurrent ${what}s of ${step.abs().toFixed()} from ${start.toFixed()}: latest_balance values ${shown}; a serial order gives ${sorted.join(', ')}`,
    (first[0] ?? replies[0])?.index,
  );
}
