import type { Scenario } from '../../protocol/types.generated.js';
import { type ActiveScenario, ScenarioError } from './scenario.js';

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
