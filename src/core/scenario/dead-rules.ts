import type { Rule, RuleWhen, Scenario } from '../../protocol/types.generated.js';
import type { ScenarioProblem } from './scenario.js';

/*
 * Rules a scenario can load but that can never fire: warned of (validate, start), not refused, so
 * files written before these checks keep loading. Each warning names the rule's JSON pointer and
 * why; the matching itself is src/core/scenario/rules.ts (first match wins; login has no `data`).
 */

/** The `when` fields read from a callback's `data`, which a login has none of (docs/scenarios.md). */
const DATA_FIELDS = ['game_no', 'table_no', 'game_type', 'currency', 'min_amount', 'max_amount'] as const;

const label = (rule: Rule, i: number) => (rule.name ? `rule ${i} ("${rule.name}")` : `rule ${i}`);

/** Fires on every callback its `when` holds for: nothing counts, draws or runs out. */
const firesEachTime = (r: Rule) =>
  r.times === undefined && r.probability === undefined && r.when.nth === undefined && r.when.every === undefined;

/** Every callback `later` matches, `earlier` matches too (so `earlier`, first, takes it). */
function covers(earlier: RuleWhen, later: RuleWhen): boolean {
  return Object.entries(earlier).every(([key, value]) => {
    const other = later[key as keyof RuleWhen];
    if (key === 'min_amount') return typeof other === 'number' && other >= (value as number);
    if (key === 'max_amount') return typeof other === 'number' && other <= (value as number);
    return other === value;
  });
}

/** Each rule of the scenario that can never fire, with why and what to do. */
export function deadRules(doc: Scenario): ScenarioProblem[] {
  const rules = doc.rules ?? [];
  const warnings: ScenarioProblem[] = [];
  rules.forEach((rule, i) => {
    const at = `/rules/${i}`;
    if (rule.when.event_type === 'login')
      for (const field of DATA_FIELDS)
        if (rule.when[field] !== undefined)
          warnings.push({
            pointer: `${at}/when/${field}`,
            message: `can never match: a login carries no ${field.endsWith('amount') ? 'amount' : field}, so ${label(rule, i)} never fires; drop ${field}, or match bet or bet_result`,
          });
    // (a when.user_id of a player the wallet does not hold still fires: rules are matched before the
    // wallet refuses an unknown player, and a set_balance creates one)
    const twin = rule.probability === undefined ? -1 : rules.findIndex((other, k) => k !== i && other.name === rule.name);
    if (twin !== -1 && rule.name !== undefined)
      warnings.push({
        pointer: `${at}/name`,
        message:
          `is also ${label(rules[twin]!, twin)}'s name: a probability's draw is made from the seed, the rule's name and the player's count, ` +
          `so both rules draw alike (when one loses, so does the other); give ${label(rule, i)} a name of its own`,
      });
    const before = rules.findIndex((earlier, k) => k < i && firesEachTime(earlier) && covers(earlier.when, rule.when));
    if (before !== -1)
      warnings.push({
        pointer: at,
        message:
          `can never fire: ${label(rules[before]!, before)} comes first, matches every callback this one does and fires on each ` +
          '(no times, nth, every or probability; the first matching rule wins); move this rule above it, or give that one a times',
      });
  });
  return warnings;
}

/** The warnings as printed: one line each, "<file>: warning: <pointer> <why>". */
export const warningLines = (source: string, warnings: ScenarioProblem[]): string[] =>
  warnings.map((w) => `${source}: warning: ${w.pointer} ${w.message}`);
