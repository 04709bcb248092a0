import { mkdtempSync, rmSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { SCENARIOS_DIR } from '../src/kernel/paths.js';
import { compileScenario, loadScenarioFile, ScenarioError } from '../src/core/scenario/scenario.js';

const base = { name: 's', credentials: { api_id: 'a', api_key: 'k' } };

const problems = (doc: unknown): string[] => {
  try {
    compileScenario(doc, 'x.json');
    return [];
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    return e.problems.map((p) => `${p.pointer} ${p.message}`);
  }
};

t.test('every bundled scenario is valid and carries $schema', async (t) => {
  const files = readdirSync(SCENARIOS_DIR).filter((f) => f.endsWith('.json'));
  t.ok(files.length >= 7, 'the seven bundled scenarios');
  for (const f of files) {
    const s = loadScenarioFile(join(SCENARIOS_DIR, f));
    t.equal(s.source.$schema, '../schemas/scenario.schema.json', `${f} has $schema`);
    t.equal(`${s.source.name}.json`, f, `${f} is named after its file`);
  }
});

t.test('each bad field is named by JSON pointer, all at once', async (t) => {
  t.same(
    problems({
      ...base,
      credentials: { api_id: 'a' },
      players: [{ user_id: 'p', balance: -1 }],
      rules: [{ when: { event_type: 'deposit' }, then: { delay_ms: -5, code: 'R0' } }],
      extra: 1,
    }).sort(),
    [
      '/extra is not an allowed property; allowed here: name, description, credentials, reply_credentials, currencies, defaults, players, seed, rules, grading',
      '/credentials/api_key is required',
      '/players/0/balance must be >= 0',
      '/rules/0/then/code must be one of "R1", "R2", "R3", "R4"',
      '/rules/0/then/delay_ms must be >= 0',
      '/rules/0/when/event_type must be one of "login", "bet", "bet_result"',
    ].sort(),
  );
});

t.test('semantic checks', async (t) => {
  const cases: [string, object, string[]][] = [
    [
      'balance finer than its currency',
      { currencies: { KRW: 0 }, players: [{ user_id: 'p', balance: 1.5, currency: 'KRW' }] },
      ['/players/0/balance has 1 fraction digit; KRW allows 0'],
    ],
    [
      'repeated player',
      {
        players: [
          { user_id: 'p', balance: 1 },
          { user_id: 'p', balance: 2 },
        ],
      },
      ['/players/1/user_id repeats player p'],
    ],
    [
      'min > max',
      { rules: [{ when: { min_amount: 5, max_amount: 1 }, then: { code: 'R1' } }] },
      ['/rules/0/when/min_amount must be <= max_amount (1)'],
    ],
    [
      'nth with every',
      { rules: [{ when: { nth: 2, every: 2 }, then: { code: 'R1' } }] },
      ['/rules/0/when/every cannot be combined with nth'],
    ],
    [
      'then must do something',
      { rules: [{ when: {}, then: {} }] },
      [
        '/rules/0/then is empty: give it what the rule does (one of code, delay_ms, drop_connection, http_status, body, latest_balance, set_balance)',
      ],
    ],
    [
      'set_balance finer than the default currency',
      { rules: [{ when: {}, then: { set_balance: 1.239 } }] },
      ['/rules/0/then/set_balance has 3 fraction digits; USD allows 2'],
    ],
    [
      'set_balance in the currency the rule names',
      { currencies: { KRW: 0 }, rules: [{ when: { currency: 'KRW' }, then: { set_balance: 1.5 } }] },
      ['/rules/0/then/set_balance has 1 fraction digit; KRW allows 0'],
    ],
    [
      'set_balance without a currency: every currency the scenario lists must hold it',
      { currencies: { KRW: 0 }, rules: [{ when: { event_type: 'bet' }, then: { set_balance: 12.34 } }] },
      [
        '/rules/0/then/set_balance has 2 fraction digits; KRW allows 0: a KRW player this rule matches could not hold it; name the currency in when.currency (or the player in when.user_id), or give an amount every currency of the scenario holds',
      ],
    ],
    [
      "set_balance in a preset player's currency",
      {
        currencies: { KRW: 0 },
        players: [
          { user_id: 'k1', balance: 100, currency: 'KRW' },
          { user_id: 'u1', balance: 100 },
        ],
        rules: [
          { when: { user_id: 'u1' }, then: { set_balance: 12.34 } },
          { when: { user_id: 'k1' }, then: { set_balance: 12.5 } },
          { when: { user_id: 'k1' }, then: { set_balance: 12 } },
        ],
      },
      ['/rules/1/then/set_balance has 1 fraction digit; KRW allows 0'],
    ],
    [
      'latest_balance override beyond 15 digits',
      { rules: [{ when: {}, then: { latest_balance: 0.30000000000000004 } }] },
      [
        '/rules/0/then/latest_balance has 17 significant digits; a JSON number holds 15 exactly (a float sum, or more digits than any parser keeps)',
      ],
    ],
    [
      'http_status below 200 would leave the caller hanging',
      { rules: [{ when: {}, then: { http_status: 100 } }] },
      ['/rules/0/then/http_status must be >= 200'],
    ],
    ['a valid scenario', { players: [{ user_id: '__proto__', balance: 1.25 }] }, []],
  ];
  for (const [name, extra, expected] of cases) t.same(problems({ ...base, ...extra }), expected, name);
});

t.test('file errors name the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-scenario-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{ "name": ');
  t.throws(() => loadScenarioFile(bad), { message: new RegExp(`^${bad}: is not valid JSON`) });
  t.throws(() => loadScenarioFile(join(dir, 'missing.json')), {
    message: /missing\.json: there is no such file \(looked for it from .*\): check the path/,
  });
  writeFileSync(bad, JSON.stringify({ name: 'x' }));
  t.throws(() => loadScenarioFile(bad), { message: `${bad}: /credentials is required` });
});
