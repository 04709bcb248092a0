import { stringify } from 'safe-stable-stringify';
import { type CheckRun, describe, plural, violation } from '../check.js';
import type { Facts } from '../facts.js';

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
export function retryUnchanged(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byTx.values()) {
    if (attempts.length < 2) continue;
    run.exercised++;
    const [first, ...resends] = attempts;
    // Plain JSON text first (resends usually keep the key order), key-order-free text when it differs.
    const plain = JSON.stringify(withoutTimestamp(first!.body));
    const stable = stringify(withoutTimestamp(first!.body));
    const changed = resends.find(
      (r) => JSON.stringify(withoutTimestamp(r.body)) !== plain && stringify(withoutTimestamp(r.body)) !== stable,
    );
    if (!changed) continue;
    const fields = differing(first!.body, changed.body);
    run.violations.push(
      violation(
        `${describe(changed)} resends ${changed.tx} with a different body than #${first!.id}${fields.length ? `: ${fields.join(', ')} changed` : ''}`,
        [first!, changed],
      ),
    );
  }
  run.detail =
    run.exercised === 0 ? '' : `${plural(run.exercised, 'resent transaction')}: ${run.exercised - run.violations.length} resent unchanged`;
  return run;
}
