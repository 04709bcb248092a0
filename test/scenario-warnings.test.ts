// Scenario files a newcomer gets wrong: rules that load but can never fire (warned, by validate and
// start), currency codes in the wrong case and empty credentials (refused: the wallet would refuse
// every bet or caller), and a file in YAML or with comments (the place and the hint, in one line).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { deadRules } from '../src/core/scenario/dead-rules.js';
import { compileScenario, ScenarioError } from '../src/core/scenario/scenario.js';
import type { Rule, Scenario } from '../src/protocol/types.generated.js';
import { jsonSyntaxError } from '../src/text/json-position.js';
import { buildTestApp } from './helpers/app.js';
import { run, runAll, start } from './helpers/spawn-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-warn-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const base = { name: 't', credentials: { api_id: 'a', api_key: 'b' } };
const withRules = (rules: Rule[], extra: Partial<Scenario> = {}): Scenario => ({ ...base, ...extra, rules });
const R1 = { code: 'R1' } as const;

t.test('deadRules: each rule that can never fire, by pointer; the rest are not named', async (t) => {
  const cases: [string, Scenario, [string, RegExp][]][] = [
    [
      'amount on a login',
      withRules([{ when: { event_type: 'login', min_amount: 10 }, then: R1 }]),
      [['/rules/0/when/min_amount', /a login carries no amount/]],
    ],
    [
      'currency on a login',
      withRules([{ when: { event_type: 'login', currency: 'USD' }, then: R1 }]),
      [['/rules/0/when/currency', /a login carries no currency/]],
    ],
    [
      'after a catch-all',
      withRules([
        { when: {}, then: { delay_ms: 5 } },
        { name: 'late', when: { event_type: 'bet' }, then: R1 },
      ]),
      [['/rules/1', /rule 0 comes first, matches every callback this one does/]],
    ],
    [
      // (not dead: rules are matched before the wallet refuses an unknown player, and a set_balance creates one)
      'none: a player the wallet does not hold',
      withRules([{ when: { user_id: 'alic' }, then: R1 }], {
        defaults: { auto_create_players: false },
        players: [{ user_id: 'alice', balance: 1 }],
      }),
      [],
    ],
    [
      'two drawing rules of one name',
      withRules([
        { name: 'fault', when: { user_id: 'u' }, then: R1, probability: 0.5 },
        { name: 'fault', when: {}, then: { code: 'R2' }, probability: 0.5 },
      ]),
      [
        ['/rules/0/name', /is also rule 1 \("fault"\)'s name: .* both rules draw alike/],
        ['/rules/1/name', /is also rule 0 \("fault"\)'s name/],
      ],
    ],
    [
      'none: a catch-all with times, a narrower rule first, a listed player, bet amounts',
      withRules(
        [
          { when: { event_type: 'bet', user_id: 'alice' }, then: R1 },
          { when: { event_type: 'bet' }, then: R1 },
          { when: {}, then: R1, times: 1 },
          { when: { event_type: 'bet', min_amount: 5 }, then: R1 },
          { when: { event_type: 'bet_result', min_amount: 1 }, then: R1 },
          { when: { event_type: 'bet_result', min_amount: 0.5 }, then: R1 },
        ],
        { defaults: { auto_create_players: false }, players: [{ user_id: 'alice', balance: 1 }] },
      ),
      [['/rules/3', /rule 1 comes first/]],
    ],
  ];
  for (const [name, scenario, expected] of cases) {
    const got = deadRules(scenario);
    t.same(
      got.map((w) => w.pointer),
      expected.map(([p]) => p),
      name,
    );
    expected.forEach(([, message], i) => t.match(got[i]?.message, message, name));
  }
});

const DEAD = JSON.stringify(withRules([{ when: { event_type: 'login', min_amount: 10 }, then: R1 }]));

t.test('validate prints the warnings (file, pointer, why) and still says ok; start prints them and starts', async (t) => {
  const dead = file('dead.json', DEAD);
  const ran = await run(['validate', dead]);
  t.equal(ran.code, 0, 'warned, not refused');
  t.match(ran.stdout, `${dead}: ok (scenario "t")`);
  t.match(ran.stderr, `${dead}: warning: /rules/0/when/min_amount can never match: a login carries no amount`);
  const started = await start(t, ['--port', '0', '--scenario', dead]);
  t.match(started.stderr(), `wallet-sim: ${dead}: warning: /rules/0/when/min_amount can never match`);
});

t.test('PUT /admin/scenario answers the warnings too (the scenario is active all the same); none, no field', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const put = (payload: string) =>
    app.inject({ method: 'PUT', url: '/admin/scenario', headers: { 'content-type': 'application/json' }, payload });
  const warned = await put(DEAD);
  t.equal(warned.statusCode, 200);
  t.match(warned.json(), {
    ok: true,
    name: 't',
    warnings: [{ pointer: '/rules/0/when/min_amount', message: /can never match: a login carries no amount/ }],
  });
  t.equal((await app.inject({ method: 'GET', url: '/admin/scenario' })).json().name, 't', 'active');
  const clean = await put(JSON.stringify(withRules([{ when: { event_type: 'bet' }, then: R1, times: 1 }])));
  t.equal(clean.statusCode, 200);
  t.notOk('warnings' in clean.json());
});

t.test('currency codes are capitals and digits everywhere; credentials are not empty', async (t) => {
  const cases: [string, object, RegExp][] = [
    ['defaults.currency', { defaults: { currency: 'usd' } }, /\/defaults\/currency is not a currency code: .*did you mean USD\?/],
    ['a player', { players: [{ user_id: 'p', balance: 1, currency: 'krw' }] }, /\/players\/0\/currency is not a currency code/],
    ['a rule', { rules: [{ when: { currency: 'usd' }, then: R1 }] }, /\/rules\/0\/when\/currency is not a currency code/],
    ['api_id', { credentials: { api_id: '', api_key: 'k' } }, /\/credentials\/api_id must NOT have fewer than 1 characters/],
    ['api_key', { credentials: { api_id: 'a', api_key: '' } }, /\/credentials\/api_key must NOT have fewer than 1 characters/],
  ];
  for (const [name, extra, message] of cases) {
    const failed = (() => {
      try {
        compileScenario({ ...base, ...extra });
      } catch (e) {
        return e;
      }
    })();
    t.ok(failed instanceof ScenarioError, `${name}: refused`);
    t.match((failed as Error | undefined)?.message, message, name);
  }
});

t.test('a YAML or commented scenario file: the place, no JSON snippet with its line break, and the hint', async (t) => {
  const yaml = file('scen.yaml', 'name: t\ncredentials:\n  api_id: a\n');
  const commented = file('c.json', '{\n  // the name\n  "name": "t"\n}\n');
  const plain = file('p.json', '{\n  "name": "t",\n  "rules": [ }\n');
  const [y, c, p] = await runAll([
    ['validate', yaml],
    ['validate', commented],
    ['validate', plain],
  ]);
  for (const [r, path] of [
    [y!, yaml],
    [c!, commented],
  ] as const) {
    t.equal(r.code, 1);
    t.equal(r.stderr.trim().split('\n').length, 1, `${path}: one line`);
    t.match(
      r.stderr,
      new RegExp(`^${path}: is not valid JSON: .* at line \\d+, column \\d+; scenario files are plain JSON: no comments, no YAML`),
    );
    t.notMatch(r.stderr, /\.\.\.|is not valid JSON$/m, 'no snippet of the text');
  }
  t.notMatch(p!.stderr, /plain JSON/, 'a JSON typo gets no YAML hint');
  t.equal(
    jsonSyntaxError('x'.repeat(40), new Error(`Unexpected token 'x', ..."xxxxxxxxxx"... is not valid JSON`)),
    "Unexpected token 'x' at line 1, column 1",
  );
});

t.test('PUT /admin/scenario not JSON: a scenario message with the place, not the players example', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const put = (payload: string, url = '/admin/scenario') =>
    app.inject({ method: 'PUT', url, headers: { 'content-type': 'application/json' }, payload });
  const yaml = await put('name: t\ncredentials:\n  api_id: a\n');
  t.equal(yaml.statusCode, 400);
  t.equal(yaml.json().error, 'BODY_NOT_JSON');
  t.match(
    yaml.json().message,
    /^the scenario is not valid JSON: .* at line 1, column \d+; scenarios are plain JSON: no comments, no YAML; send the file as it is/,
  );
  t.notMatch(yaml.json().message, /balance/);
  const typo = await put('{"name": "x",\n "rules": [ }');
  t.match(typo.json().message, /at line 2, column 13/);
  const players = await put('{x', '/admin/players/p1');
  t.match(players.json().message, /curl -d '\{"balance": 100\}'/, "the players' route keeps its example");
});
