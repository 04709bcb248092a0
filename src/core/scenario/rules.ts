import { eventNamed } from '../../protocol/registry.js';
import { type Money, money } from '../../kernel/money.js';
import type { CallbackRequest, Rule } from '../../protocol/types.generated.js';
import { wins } from './draw.js';

/** A rule that fired, for the reply and the journal. */
export interface Fired {
  index: number;
  name: string;
  rule: Rule;
}

export interface RuleHits {
  index: number;
  name: string;
  matched: number;
  fired: number;
  exhausted: boolean;
}

const nameOf = (rule: Rule, index: number) => rule.name ?? `rule ${index}`;

/** Whether the n-th callback matching a rule is one it fires on (`nth`, `every`). */
const isDue = ({ when: { nth, every } }: Rule, n: number) => (nth === undefined || n === nth) && (every === undefined || n % every === 0);

/** A rule with a `probability` fires only when its draw for this callback wins (src/core/scenario/draw.ts). */
const drawWins = (rule: Rule, index: number, seed: number, req: CallbackRequest, count: number) =>
  rule.probability === undefined || wins(rule.probability, seed, nameOf(rule, index), req.user_id, count);

/**
 * Rule counters kept outside this process (several wallet-sim processes on one Redis count
 * together: src/backends/redis/shared.ts). The engine's own arrays are the in-memory implementation.
 */
export interface RuleCounters {
  /** Adds one match to each listed rule; resolves with each one's count after it. */
  match(indexes: readonly number[]): Promise<number[]>;
  /** Adds one firing to rule `index` unless it fired `times` times already; true when it did. */
  fire(index: number, times: number | undefined): Promise<boolean>;
  /** The matched and fired counts of rules 0 … count − 1. */
  read(count: number): Promise<{ matched: number[]; fired: number[] }>;
}

/**
 * Chooses the scenario rule for a callback: first match wins, an exhausted rule (`times`) is
 * skipped. Every rule whose conditions hold counts the callback as an occurrence, so `nth: 3`
 * means the third such callback whatever other rules did with the first two. A rule due (`nth`,
 * `every`) and not exhausted then draws (`probability`): a lost draw means it did not fire (its
 * `times` is not used up) and the next matching rule may. `count` is the player's callback count
 * in the session, from 1 (the draw's input). Pure apart from its counters; no HTTP here.
 */
export class RuleEngine {
  private matched: number[];
  private fired: number[];
  private readonly bounds: { min?: Money; max?: Money }[];
  /** A rule draws (has a `probability`): only then is a player's callback count read. */
  readonly draws: boolean;

  constructor(
    readonly rules: readonly Rule[],
    /** The seed of the probability draws. */
    readonly seed = 0,
  ) {
    this.matched = rules.map(() => 0);
    this.fired = rules.map(() => 0);
    this.draws = rules.some((rule) => rule.probability !== undefined);
    this.bounds = rules.map(({ when }) => ({
      min: when.min_amount === undefined ? undefined : money(when.min_amount),
      max: when.max_amount === undefined ? undefined : money(when.max_amount),
    }));
  }

  choose(req: CallbackRequest, count = 1): Fired | undefined {
    let chosen: Fired | undefined;
    this.rules.forEach((rule, i) => {
      if (!this.conditionsHold(i, req)) return;
      const n = ++this.matched[i]!;
      const due = isDue(rule, n);
      const left = rule.times === undefined || this.fired[i]! < rule.times;
      if (!chosen && due && left && drawWins(rule, i, this.seed, req, count)) {
        this.fired[i]!++;
        chosen = { index: i, name: nameOf(rule, i), rule };
      }
    });
    return chosen;
  }

  /**
   * `choose` with counters shared by several processes: the same rule (every holding rule counts
   * the callback; the first one due and not exhausted fires), each count an atomic step of the
   * shared counters, so `times: 1` fires once across all processes.
   */
  async chooseShared(req: CallbackRequest, counters: RuleCounters, count = 1): Promise<Fired | undefined> {
    const holding = this.rules.flatMap((_, i) => (this.conditionsHold(i, req) ? [i] : []));
    if (!holding.length) return undefined;
    const counts = await counters.match(holding);
    for (const [k, i] of holding.entries()) {
      const rule = this.rules[i]!;
      if (isDue(rule, counts[k]!) && drawWins(rule, i, this.seed, req, count) && (await counters.fire(i, rule.times)))
        return { index: i, name: nameOf(rule, i), rule };
    }
    return undefined;
  }

  hits(): RuleHits[] {
    return this.hitsOf({ matched: this.matched, fired: this.fired });
  }

  /** The hit counters of the rules, from counts kept here or shared. */
  hitsOf({ matched, fired }: { matched: readonly number[]; fired: readonly number[] }): RuleHits[] {
    return this.rules.map((rule, i) => ({
      index: i,
      name: nameOf(rule, i),
      matched: matched[i] ?? 0,
      fired: fired[i] ?? 0,
      exhausted: rule.times !== undefined && (fired[i] ?? 0) >= rule.times,
    }));
  }

  reset(): void {
    this.matched = this.rules.map(() => 0);
    this.fired = this.rules.map(() => 0);
  }

  private conditionsHold(i: number, req: CallbackRequest): boolean {
    const when = this.rules[i]!.when;
    if (when.event_type !== undefined && when.event_type !== req.event_type) return false;
    if (when.user_id !== undefined && when.user_id !== req.user_id) return false;
    const fields = eventNamed(req.event_type)!.matchFields(req);
    for (const key of ['game_no', 'table_no', 'game_type', 'currency'] as const) {
      if (when[key] !== undefined && when[key] !== fields[key]) return false;
    }
    const { min, max } = this.bounds[i]!;
    if (min || max) {
      if (fields.amount === undefined) return false;
      const amount = money(fields.amount);
      if (min && amount.lt(min)) return false;
      if (max && amount.gt(max)) return false;
    }
    return true;
  }
}
