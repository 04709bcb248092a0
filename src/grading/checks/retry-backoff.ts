import { type CheckRun, plural, violation } from '../check.js';
import type { Attempt, Facts } from '../facts.js';

/** Clock jitter allowed before a wait counts as shorter than the one before it. */
const tolerance = (ms: number) => Math.max(100, ms * 0.1);

/** How long the provider waited before `r`: from when it knew the previous attempt's outcome. */
const waitBefore = (p: Attempt, r: Attempt) => Math.max(0, r.at - Math.min(p.knownAt ?? r.at, r.at));

/**
 * Attempts of one transaction are spaced: never closer than min_retry_gap_ms, each wait not
 * shorter than the one before it, at most max_attempts of them.
 */
export function retryBackoff(f: Facts): CheckRun {
  const { min_retry_gap_ms: minGap, max_attempts: max } = f.t;
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byTx.values()) {
    if (attempts.length < 2) continue;
    run.exercised++;
    const tx = attempts[0]!.tx;
    if (attempts.length > max) run.violations.push(violation(`${tx} was sent ${attempts.length} times (at most ${max})`, attempts));
    const close = attempts.findIndex((a, i) => i > 0 && a.at - attempts[i - 1]!.at < minGap);
    if (close > 0) {
      const [p, r] = [attempts[close - 1]!, attempts[close]!];
      run.violations.push(violation(`#${r.id} resent ${tx} ${r.at - p.at} ms after #${p.id} (at least ${minGap} ms)`, [p, r]));
    }
    for (let i = 2; i < attempts.length; i++) {
      const [a, b, c] = [attempts[i - 2]!, attempts[i - 1]!, attempts[i]!];
      const [before, now] = [waitBefore(a, b), waitBefore(b, c)];
      if (now >= before - tolerance(before)) continue;
      run.violations.push(
        violation(
          `${tx} waited ${now} ms before #${c.id}, less than the ${before} ms it waited before #${b.id}: back-off must not shrink`,
          [a, b, c],
        ),
      );
      break;
    }
  }
  const bad = new Set(run.violations.map((v) => v.transaction_id)).size;
  run.detail = run.exercised === 0 ? '' : `${plural(run.exercised, 'resent transaction')}: ${run.exercised - bad} spaced well`;
  return run;
}
