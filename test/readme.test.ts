// The README's tables must stay true to the code: every option, route, scenario field, finding
// code and bundled scenario the code has is named in README.md.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../src/app.js';
import { startCommand } from '../src/commands/start.js';
import { tailCommand } from '../src/commands/tail.js';
import { MATCH_FIELDS } from '../src/journal/match-text.js';
import { DEFAULT_SCENARIO, ROOT, SCENARIOS_DIR } from '../src/paths.js';
import { FINDINGS } from '../src/protocol/findings.js';
import { schemas } from '../src/schemas.js';
import { compileScenario, loadScenarioFile } from '../src/scenario/scenario.js';
import { Simulator } from '../src/simulator.js';
import { MemoryStore } from '../src/store/memory.js';
import { bet, HEADERS, login, result } from './helpers/app.js';
import { listen, post } from './helpers/net.js';
import { readmeCallbacks, readmeSection, shBlocks } from './helpers/readme.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const cell = (s: string) => readme.includes(`\`${s}\``);

t.test('every start option and its env var', async (t) => {
  for (const o of startCommand().options) {
    t.ok(cell(o.long!) || readme.includes(`\`${o.long} `), `${o.long} is in the README`);
    t.ok(cell(o.envVar!), `${o.envVar} is in the README`);
  }
});

t.test('every route', async (t) => {
  const sim = await Simulator.open(loadScenarioFile(join(SCENARIOS_DIR, 'default.json')), new MemoryStore());
  const app = await buildApp({ sim });
  await app.ready();
  const documented = [
    'POST /callback',
    'GET /health',
    'GET /openapi.json',
    'GET /docs',
    'GET /admin/players',
    'GET /admin/players/:user_id',
    'PUT /admin/players/:user_id',
    'POST /admin/reset',
    'GET /admin/journal',
    'DELETE /admin/journal',
    'GET /admin/scenario',
    'GET /admin/scenario/rules',
    'PUT /admin/scenario',
  ];
  for (const r of documented) {
    t.ok(cell(r), `${r} is in the README`);
    const [method, path] = r.split(' ');
    t.ok(app.hasRoute({ method: method as 'GET', url: path! }), `${r} exists`);
  }
  await app.close();
});

t.test('every journal filter: in the route table, its own table and the tail row, as the code takes them', async (t) => {
  const row = (start: string) => readme.split('\n').find((l) => l.startsWith(start)) ?? '';
  const journalRow = row('| `GET /admin/journal` |');
  const filters = readmeSection('Journal and findings').split('### Journal filters')[1] ?? '';
  const tailRow = row('| `wallet-sim tail ');
  const tail = tailCommand();
  for (const name of Object.keys(MATCH_FIELDS)) {
    t.ok(journalRow.includes(`\`${name}\``), `${name} is a filter of GET /admin/journal in the route table`);
    t.ok(filters.includes(`\`${name}\``), `${name} is described under Journal filters`);
    const flag = `--${name.replace(/_/g, '-')}`;
    t.ok(tail.options.some((o) => o.long === flag) && tailRow.includes(`[${flag}`), `tail ${flag} exists and is in its row`);
  }
  t.ok(journalRow.includes('`limit`') && journalRow.includes('`after`'), 'the paging parameters too');
});

t.test('every scenario field', async (t) => {
  const scenario = schemas.find((s) => s.$id === 'Scenario') as any;
  const rule = scenario.definitions.rule;
  const fields = [
    ...Object.keys(scenario.properties).filter((k) => k !== '$schema'),
    ...Object.keys(scenario.properties.defaults.properties).map((k) => `defaults.${k}`),
    ...Object.keys(rule.properties.when.properties),
    ...Object.keys(rule.properties.then.properties),
    'times',
  ];
  for (const f of fields) t.ok(cell(f) || cell(`${f}[]`) || readme.includes(`\`${f}.`), `${f} is in the README`);
});

t.test('every finding code and bundled scenario', async (t) => {
  for (const [code, [severity]] of Object.entries(FINDINGS))
    t.ok(readme.includes(`| \`${code}\` | ${severity} |`), `${code} (${severity}) is in the README`);
  for (const f of readdirSync(SCENARIOS_DIR)) t.ok(readme.includes(`| \`${f.replace('.json', '')}\` |`), `${f} is described in the README`);
});

t.test("the README's example scenario does what the README says", async (t) => {
  const block = /## Scenarios[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)![1]!;
  const sim = await Simulator.open(compileScenario(JSON.parse(block), 'README'), new MemoryStore());
  const app = await buildApp({ sim });
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  t.equal((await post(url, login('alice'), HEADERS)).body.code, 'R2', 'alice is locked out');
  const usd = { currency: 'USD' };
  const first = bet('bob', 'G1', [['1', 'P', 10]], usd);
  t.equal((await post(url, first, HEADERS)).error !== undefined, true, "bob's first bet: reply dropped");
  t.equal((await post(url, first, HEADERS)).body.code, 'R0', 'its retry replays (the 2nd bet seen)');
  t.equal((await post(url, bet('bob', 'G2', [['1', 'P', 10]], usd), HEADERS)).body.code, 'R4', "bob's 3rd bet bounces");
  t.match(
    sim.rules.choose(result('bob', 'G1', [['1', 'P', 10, 0]], usd) as never),
    { rule: { then: { delay_ms: 12000 } } },
    'settlement is slow',
  );
  const journal = (await (await fetch(url.replace('/callback', '/admin/journal?user_id=bob'))).json()) as {
    entries: { code: string; replayed: boolean; reply: { dropped: boolean } }[];
  };
  t.same(
    journal.entries.map((e) => [e.code, e.replayed, e.reply.dropped]),
    [
      ['R0', false, true],
      ['R0', true, false],
      ['R4', false, false],
    ],
  );
});

// Issue 9 item 13: the curl examples are runnable as written (one WS=… to change, nothing elided)
// and answer what the README shows.
t.test(
  "the README's curl examples run as written and answer what the README shows",
  { skip: existsSync('/usr/bin/curl') || existsSync('/bin/curl') ? false : 'curl is not installed' },
  async (t) => {
    const section = readmeSection('One callback of each kind');
    const blocks = shBlocks(section);
    t.equal(blocks.length, 2, 'the round and the R4 example');
    t.equal((section.match(/8080/g) ?? []).length, 1, 'the port is written once, in WS=');
    t.notMatch(blocks.join('\n'), /…|\.\.\./, 'nothing is elided');
    t.same(
      readmeCallbacks(1).map((b) => JSON.parse(b).event_type),
      ['login', 'bet', 'bet_result', 'bet'],
      'every body is complete JSON',
    );

    const sim = await Simulator.open(loadScenarioFile(DEFAULT_SCENARIO), new MemoryStore()); // what npm start runs
    const app = await buildApp({ sim });
    t.teardown(() => app.close());
    const base = await listen(app);
    const script = blocks.join('\n');
    t.match(script, /^WS=http:\/\/127\.0\.0\.1:8080 /m);
    const { stdout } = await promisify(execFile)('bash', ['-c', script.replace(/^WS=\S+/m, `WS=${base}`)], { timeout: 30_000 });
    const normal = (l: string) => l.replace(/"timestamp":\d+/, '"timestamp":0').toLowerCase();
    const actual = stdout.split(/\r?\n/).map(normal);
    const shown = script
      .split('\n')
      .filter((l) => l.startsWith('# ') || l === '#')
      .map((l) => normal(l.slice(2)))
      .filter(Boolean);
    let at = 0;
    for (const line of shown) {
      const found = actual.indexOf(line, at);
      t.ok(found >= 0, `the output has, in order: ${line}`, { stdout });
      if (found >= 0) at = found + 1;
    }
    t.equal(sim.player('player-1')?.balance.toFixed(), '1005000', 'the round was played');
  },
);

t.test('the spec the README links to ships in the package', async (t) => {
  t.match(readme, /\[`docs\/spec\/callbacks\.md`\]\(docs\/spec\/callbacks\.md\)/);
  t.notMatch(readme, /\]\(\.\.\//, 'no link leaves the repository');
  t.ok(existsSync(join(ROOT, 'docs/spec/callbacks.md')), 'docs/spec/callbacks.md exists');
  const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
  t.ok(files.includes('docs'), 'package.json files has docs/, so the installed README links work');
  for (const [, target] of readme.matchAll(/\]\(((?:docs|schemas|scenarios)\/[^)#]+)/g)) {
    t.ok(existsSync(join(ROOT, target!)), `${target} exists`);
    t.ok(
      files.some((f) => target!.startsWith(`${f}/`) || target === f),
      `${target} is in the package`,
    );
  }
});
