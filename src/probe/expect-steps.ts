import type { Money } from '../kernel/money.js';
import type { Check } from './session.js';

/**
 * Concurrent replies: each latest_balance must be one step of a serial order, so together they are
 * start + step, start + 2 step, …, start + n step (lost updates or float drift break the set).
 */
export function expectSteps(
  c: Check,
  replies: { balance?: Money; balanceText?: string; index: number }[],
  start: Money | undefined,
  step: Money,
  what: string,
): void {
  if (start === undefined || replies.some((r) => r.balance === undefined)) return;
  const got = replies.map((r) => r.balance!).sort((x, y) => x.comparedTo(y));
  const want = replies.map((_, i) => start.plus(step.times(i + 1))).sort((x, y) => x.comparedTo(y));
  const same = got.every((g, i) => g.eq(want[i]!));
  c.assert(
    'balance-arithmetic',
    same,
    `${replies.length} concurrent ${what}s of ${step.abs().toFixed()} from ${start.toFixed()}: latest_balance values ${replies.map((r) => r.balanceText).join(', ')}; a serial order gives ${want.map((w) => w.toFixed()).join(', ')}`,
    replies[0]?.index,
  );
}
