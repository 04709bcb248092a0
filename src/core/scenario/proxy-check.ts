import type { Scenario } from '../../protocol/types.generated.js';
import { type ActiveScenario, ScenarioError, type ScenarioProblem } from './scenario.js';

/**
 * What proxy mode (start --upstream) cannot do: a rule's `set_balance` changes a balance, and the
 * balances live in the operator's wallet, which wallet-sim cannot write. Throws a ScenarioError
 * naming each such rule, so `start --upstream`, `PUT /admin/scenario` (400) and `validate --proxy`
 * refuse it alike.
 */
export function checkProxyable(scenario: ActiveScenario | Scenario, source: string): void {
  const doc = 'source' in scenario ? scenario.source : scenario;
  const problems = (doc.rules ?? []).flatMap((rule, i) =>
    rule.then.set_balance === undefined
      ? []
      : [
          {
            pointer: `/rules/${i}/then/set_balance`,
            message:
              "cannot be used in proxy mode (--upstream): balances live in the upstream wallet, which wallet-sim does not write; remove set_balance and set the test player's balance in the upstream wallet",
          },
        ],
  );
  if (problems.length) throw new ScenarioError(source, problems);
}

/**
 * What a scenario says that does nothing in proxy mode, warned of (validate --proxy, start
 * --upstream): listed players (balances are the upstream wallet's: none is seeded) and a rule's
 * latest_balance without a code (the upstream's reply is relayed as it came).
 */
export function proxyWarnings(scenario: ActiveScenario | Scenario): ScenarioProblem[] {
  const doc = 'source' in scenario ? scenario.source : scenario;
  const players: ScenarioProblem[] = doc.players?.length
    ? [
        {
          pointer: '/players',
          message:
            "are not seeded in proxy mode (balances are the upstream wallet's, which wallet-sim does not write): set them in that wallet; the list changes nothing",
        },
      ]
    : [];
  const balances = (doc.rules ?? []).flatMap((rule, i) =>
    rule.then.latest_balance !== undefined && rule.then.code === undefined
      ? [
          {
            pointer: `/rules/${i}/then/latest_balance`,
            message:
              "changes nothing in proxy mode without code: the upstream's reply is relayed as it came; add code (answered by wallet-sim, not forwarded) or use body",
          },
        ]
      : [],
  );
  return [...players, ...balances];
}

/** The longest `delay_ms` a hosted tenant's rule may have: a held reply holds a connection of a shared host. */
export const HOSTED_MAX_DELAY_MS = 60_000;

/**
 * What a hosted tenant's scenario cannot do (start --hosted): list more players than --tenant-players, or delay a reply longer than
 * HOSTED_MAX_DELAY_MS. Throws a ScenarioError naming each such rule, so POST /tenants and
 * PUT /t/:id/admin/scenario refuse it alike (400).
 */
export function checkHostable(scenario: ActiveScenario | Scenario, source: string, maxPlayers = Number.POSITIVE_INFINITY): void {
  const doc = 'source' in scenario ? scenario.source : scenario;
  const listed = doc.players?.length ?? 0;
  const tooMany =
    listed > maxPlayers
      ? [
          {
            pointer: '/players',
            message: `lists ${listed} players, more than the ${maxPlayers} a hosted workspace holds (--tenant-players): list fewer`,
          },
        ]
      : [];
  const problems = (doc.rules ?? []).flatMap((rule, i) =>
    (rule.then.delay_ms ?? 0) <= HOSTED_MAX_DELAY_MS
      ? []
      : [
          {
            pointer: `/rules/${i}/then/delay_ms`,
            message: `must be <= ${HOSTED_MAX_DELAY_MS} on a hosted wallet-sim (a held reply holds one of the host's shared connections): shorten it, or run wallet-sim yourself for longer delays`,
          },
        ],
  );
  if (problems.length || tooMany.length) throw new ScenarioError(source, [...tooMany, ...problems]);
}
