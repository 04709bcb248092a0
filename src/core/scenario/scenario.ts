import { type Thresholds, thresholdsOf } from './thresholds.js';
import { amountProblem, type Money, money } from '../../kernel/money.js';
import type { Rule, Scenario } from '../../protocol/types.generated.js';
import { DocumentError, type DocumentProblem, loadJsonDocument } from '../../kernel/documents.js';
import { depthProblem } from '../../text/json-depth.js';
import { describeErrors, validator } from '../../protocol/schemas.js';

const validateSchema = validator<Scenario>('Scenario');

export type ScenarioProblem = DocumentProblem;

/** A scenario that cannot be used: every problem, each with its JSON pointer. */
export class ScenarioError extends DocumentError {
  override name = 'ScenarioError';
}

/** A validated scenario with its defaults filled in and amounts as exact decimals. */
export interface ActiveScenario {
  source: Scenario;
  credentials: { api_id: string; api_key: string };
  replyCredentials?: { api_id: string; api_key: string };
  scales: Map<string, number>;
  /** Fraction digits allowed in a currency: the scenario's `currencies`, else 2. */
  scaleOf(currency: string): number;
  defaultCurrency: string;
  defaultBalance: Money;
  autoCreatePlayers: boolean;
  timestampSkewS: number;
  /** `currency` is absent when the file leaves it out: defaults for a new player, kept for a known one. */
  players: { user_id: string; balance: Money; currency?: string }[];
  rules: Rule[];
  /** The certification report's thresholds: the file's `grading`, defaults filled in. */
  grading: Thresholds;
}

export const DEFAULT_SCALE = 2;

/** Validates a parsed scenario document; throws ScenarioError naming every problem. */
export function compileScenario(doc: unknown, source = 'scenario'): ActiveScenario {
  const tooDeep = depthProblem(doc);
  if (tooDeep) throw new ScenarioError(source, [tooDeep]);
  if (!validateSchema(doc)) throw new ScenarioError(source, describeErrors(validateSchema.errors));
  const scales = new Map(Object.entries(doc.currencies ?? {}));
  const scaleOf = (c: string) => scales.get(c) ?? DEFAULT_SCALE;
  const defaultCurrency = doc.defaults?.currency ?? 'USD';
  const problems: ScenarioProblem[] = [];
  const checkScale = (n: number, currency: string, pointer: string) => {
    const problem = amountProblem(money(n), currency, scaleOf(currency));
    if (problem) problems.push({ pointer, message: problem.message.replace(/^\S+ /, '') });
  };
  const seen = new Set<string>();
  const players = (doc.players ?? []).map((p, i) => {
    if (seen.has(p.user_id)) problems.push({ pointer: `/players/${i}/user_id`, message: `repeats player ${p.user_id}` });
    seen.add(p.user_id);
    checkScale(p.balance, p.currency ?? defaultCurrency, `/players/${i}/balance`);
    return { user_id: p.user_id, balance: money(p.balance), currency: p.currency };
  });
  const defaultBalance = doc.defaults?.balance ?? 1000;
  checkScale(defaultBalance, defaultCurrency, '/defaults/balance');
  (doc.rules ?? []).forEach((r, i) => {
    const { min_amount: min, max_amount: max, nth, every } = r.when;
    if (min !== undefined && max !== undefined && min > max)
      problems.push({ pointer: `/rules/${i}/when/min_amount`, message: `must be <= max_amount (${max})` });
    if (nth !== undefined && every !== undefined)
      problems.push({ pointer: `/rules/${i}/when/every`, message: 'cannot be combined with nth' });
    if (r.probability !== undefined && !r.name)
      problems.push({ pointer: `/rules/${i}/name`, message: 'is required on a rule with a probability (the draw hashes it): add "name"' });
    // A rule's amounts are in the currency of the players it can match: the one it names, its preset
    // player's, else any the scenario lists (a KRW player matched by a rule without a currency
    // cannot hold 12.34: that is refused here, never rounded at the callback).
    const preset = doc.players?.find((p) => p.user_id === r.when.user_id);
    const named = r.when.currency ?? (preset ? (preset.currency ?? defaultCurrency) : undefined);
    const currencies = named !== undefined ? [named] : [defaultCurrency, ...scales.keys()];
    const checkAll = (n: number, pointer: string) => {
      const fits = (c: string) => !amountProblem(money(n), c, scaleOf(c));
      const bad = currencies.find((c) => !fits(c));
      if (bad === undefined) return;
      checkScale(n, bad, pointer);
      if (currencies.some(fits))
        problems.at(-1)!.message +=
          `: a ${bad} player this rule matches could not hold it; name the currency in when.currency (or the player in when.user_id), or give an amount every currency of the scenario holds`;
    };
    if (r.then.set_balance !== undefined) checkAll(r.then.set_balance, `/rules/${i}/then/set_balance`);
    // (a reply's latest_balance is a stated figure, not a balance held: the rule's own currency)
    if (typeof r.then.latest_balance === 'number')
      checkScale(r.then.latest_balance, r.when.currency ?? defaultCurrency, `/rules/${i}/then/latest_balance`);
  });
  if (problems.length) throw new ScenarioError(source, problems);
  return {
    source: doc,
    credentials: doc.credentials,
    replyCredentials: doc.reply_credentials,
    scales,
    scaleOf,
    defaultCurrency,
    defaultBalance: money(defaultBalance),
    autoCreatePlayers: doc.defaults?.auto_create_players ?? true,
    timestampSkewS: doc.defaults?.timestamp_skew_s ?? 300,
    players,
    rules: doc.rules ?? [],
    grading: thresholdsOf(doc.grading),
  };
}

/** Reads, parses and validates a scenario file; every error names the file, the JSON pointer and the reason. */
export function loadScenarioFile(path: string): ActiveScenario {
  return loadJsonDocument(path, compileScenario, ScenarioError, 'scenario files');
}
