import { type CheckRun, describe, plural, violation } from '../check.js';
import type { Attempt, Facts } from '../facts.js';

/** After a login read as R2 or R3, no new bet for that player until a later login is read as R0. */
export function noBetAfterLoginRefused(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byUser.values()) {
    const logins = attempts
      .filter((a) => a.event === 'login' && (a.outcome === 'R0' || a.outcome === 'R2' || a.outcome === 'R3'))
      .sort((a, b) => a.knownAt! - b.knownAt!);
    if (!logins.some((l) => l.outcome !== 'R0')) continue;
    run.exercised++;
    const lastLoginBefore = (at: number): Attempt | undefined => logins.filter((l) => l.knownAt! <= at).at(-1);
    const bad = attempts
      .filter((a) => a.event === 'bet' && a.nth === 0)
      .map((b) => ({ b, login: lastLoginBefore(b.at) }))
      .filter(({ login }) => login && login.outcome !== 'R0');
    if (bad.length) {
      const { b, login } = bad[0]!;
      run.violations.push(
        violation(
          `${describe(b)} came after ${describe(login!)} was refused with ${login!.outcome} and before any successful login`,
          [login!, ...bad.map((x) => x.b)],
          b.tx,
        ),
      );
    }
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'player')} with a refused login: ${run.exercised - run.violations.length} not betting until a login succeeded`;
  return run;
}
