// The history search alone (no wallet): a counter whose operations add or read, checked as
// Porcupine's and Knossos's tests check a register.
import t from 'tap';
import { type HistoryOp, linearize, MAX_OPS } from '../../src/grading/wallet/history.js';

/** add n (then the counter reports the sum) or read (reports it); `seen` undefined: the outcome is unknown. */
interface Op {
  add: number;
  seen?: number;
}
const op = (call: number, ret: number, add: number, seen?: number): HistoryOp<Op> => ({ call, ret, input: { add, seen } });
const step = (s: number, h: HistoryOp<Op>): number[] => {
  const next = s + h.input.add;
  if (h.input.seen === undefined) return h.input.add ? [next, s] : [s]; // applied or not
  return h.input.seen === next ? [next] : [];
};
const verdict = (ops: HistoryOp<Op>[], budget?: number) => linearize(ops, 0, step, String, budget).verdict;

t.test('histories and their verdicts', async (t) => {
  const rows: [string, HistoryOp<Op>[], 'ok' | 'illegal' | 'unknown'][] = [
    ['one after another', [op(1, 2, 1, 1), op(3, 4, 2, 3)], 'ok'],
    ['overlapping, answered in the other order', [op(1, 4, 1, 3), op(2, 3, 2, 2)], 'ok'],
    ['a lost update: both report their own add on 0', [op(1, 3, 1, 1), op(2, 4, 2, 2)], 'illegal'],
    ['real-time order kept: the second was sent after the first returned', [op(1, 2, 1, 3), op(3, 4, 2, 2)], 'illegal'],
    ['an unknown outcome, applied', [op(1, 4, 5), op(2, 3, 1, 6)], 'ok'],
    ['an unknown outcome, not applied', [op(1, 4, 5), op(2, 3, 1, 1)], 'ok'],
    ['an unknown outcome explains nothing else', [op(1, 4, 5), op(2, 3, 1, 4)], 'illegal'],
    ['nothing to order', [], 'ok'],
  ];
  for (const [name, ops, want] of rows) t.equal(verdict(ops), want, name);
});

t.test('past the bound it says it could not judge, never a guess', async (t) => {
  // Twelve overlapping adds of 1 that all report 1: no order explains it, and proving so takes many steps.
  const ops = Array.from({ length: 12 }, (_, i) => op(i, 100 + i, 1, 1));
  t.equal(verdict(ops, 5), 'unknown');
  t.equal(verdict(ops), 'illegal', 'within the default bound: illegal (the cache keeps it small)');
  const many = Array.from({ length: MAX_OPS + 1 }, (_, i) => op(i, 100 + i, 0, 0));
  t.equal(verdict(many), 'unknown', `more than ${MAX_OPS} overlapping operations`);
});

t.test('the order found is one the model accepts', async (t) => {
  const found = linearize([op(1, 5, 2, 3), op(2, 4, 1, 1)], 0, step, String);
  t.equal(found.verdict, 'ok');
  if (found.verdict === 'ok') {
    t.same(
      found.order.map((h) => h.input.add),
      [1, 2],
    );
    t.equal(found.state, 3);
  }
});
