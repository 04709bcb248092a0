/**
 * Is a history of overlapping operations explained by some serial order of them? The search
 * Wing & Gong's linearizability checker does, as Porcupine and Knossos run it: an operation may go
 * next only if no operation still to place had returned before it was called (real-time order), the
 * model says what each operation leads to from a state (several states when its outcome is not
 * known), and a (placed set, state) pair tried once is never tried again. Pure: no clock, no I/O.
 *
 * The search is bounded: past `budget` model steps it answers `unknown` ("could not judge"),
 * never a guess.
 */

/** One operation of the history: when it was called and when it returned, as positions in one sequence. */
export interface HistoryOp<I> {
  call: number;
  ret: number;
  input: I;
}

/** What the model says of one operation from one state: the states it may lead to (none: it cannot happen there). */
export type Step<S, I> = (state: S, op: HistoryOp<I>) => readonly S[];

export type Linearized<S, I> =
  { verdict: 'ok'; order: HistoryOp<I>[]; state: S } | { verdict: 'illegal' } | { verdict: 'unknown'; steps: number };

/** The most operations one history may hold (the placed set is a bit mask). */
export const MAX_OPS = 30;
/** Model steps a search may take before it says "could not judge". */
export const DEFAULT_BUDGET = 20_000;

/**
 * A serial order of `ops` that starts from `init`, keeps the real-time order and that the model
 * accepts at every step (the first one found), or `illegal` when there is none, or `unknown` past
 * the budget or the size bound. `keyOf` names a state: two states with one key are the same.
 */
export function linearize<S, I>(
  ops: readonly HistoryOp<I>[],
  init: S,
  step: Step<S, I>,
  keyOf: (state: S) => string,
  budget = DEFAULT_BUDGET,
): Linearized<S, I> {
  if (ops.length > MAX_OPS) return { verdict: 'unknown', steps: 0 };
  const all = (1 << ops.length) - 1 || 0;
  const seen = new Set<string>();
  const order: HistoryOp<I>[] = [];
  let steps = 0;
  let outOfBudget = false;

  const search = (placed: number, state: S): S | undefined => {
    if (placed === all) return state;
    // The earliest return among the operations still to place: none called after it may go first.
    let firstReturn = Infinity;
    for (let i = 0; i < ops.length; i++) if (!(placed & (1 << i))) firstReturn = Math.min(firstReturn, ops[i]!.ret);
    for (let i = 0; i < ops.length; i++) {
      if (placed & (1 << i)) continue;
      const op = ops[i]!;
      if (op.call > firstReturn) continue;
      if (++steps > budget) {
        outOfBudget = true;
        return undefined;
      }
      for (const next of step(state, op)) {
        const mask = placed | (1 << i);
        const key = `${mask}:${keyOf(next)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        order.push(op);
        const end = search(mask, next);
        if (end !== undefined) return end;
        order.pop();
        if (outOfBudget) return undefined;
      }
    }
    return undefined;
  };

  const end = search(0, init);
  if (end !== undefined) return { verdict: 'ok', order, state: end };
  return outOfBudget ? { verdict: 'unknown', steps } : { verdict: 'illegal' };
}
