import { marked, mark } from '../model.js';
import { stringify } from 'safe-stable-stringify';
import { describe } from '../attempt.js';
import type { Reducer } from '../grader.js';

const ID = 'RETRY_UNCHANGED';

const withoutTimestamp = (body: unknown): unknown => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { timestamp: _ignored, ...rest } = body as Record<string, unknown>;
  return rest;
};

/** The fields (top level and under data) whose values differ. */
function differing(a: unknown, b: unknown): string[] {
  const obj = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const out: string[] = [];
  const [x, y] = [obj(withoutTimestamp(a)), obj(withoutTimestamp(b))];
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (stringify(x[k]) === stringify(y[k])) continue;
    if (k === 'data') {
      const [dx, dy] = [obj(x[k]), obj(y[k])];
      for (const d of new Set([...Object.keys(dx), ...Object.keys(dy)])) if (stringify(dx[d]) !== stringify(dy[d])) out.push(`data.${d}`);
    } else out.push(k);
  }
  return out;
}

/** Every resend of a transaction has the body of its first attempt, timestamp aside. */
export const retryUnchanged: Reducer = {
  arrive(g, a, tx) {
    if (a.nth === 0 || tx.first === a) return;
    const tally = g.tally(ID);
    if (a.nth === 1) tally.exercise(a.user);
    if (marked(tx, ID)) return;
    // Plain JSON text first (resends usually keep the key order), key-order-free text when it differs.
    const [first, again] = [withoutTimestamp(tx.first.body), withoutTimestamp(a.body)];
    if (JSON.stringify(first) === JSON.stringify(again) || stringify(first) === stringify(again)) return;
    mark(tx, ID);
    const fields = differing(tx.first.body, a.body);
    tally.violate(
      `${describe(a)} resends ${a.tx} with a different body than #${tx.first.id}${fields.length ? `: ${fields.join(', ')} changed` : ''}`,
      [tx.first, a],
    );
  },
};
