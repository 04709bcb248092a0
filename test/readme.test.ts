// The docs stay true to the code: every option, route, journal filter, scenario field, finding
// code and bundled scenario the code has is in the reference page that holds its table (docs/cli.md,
// docs/routes.md, docs/scenarios.md), the README's examples run as written, the README stays short,
// every relative link resolves, and nothing cites a file outside the repository.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import t from 'tap';
import type { Command } from 'commander';
import { buildApp } from '../src/app/app.js';
import { openapiCommand } from '../src/app/openapi-command.js';
import { probeCommand } from '../src/commands/probe.js';
import { reportCommand } from '../src/commands/report.js';
import { sendCommand } from '../src/commands/send.js';
import { startCommand } from '../src/app/start.js';
import { tailCommand } from '../src/commands/tail.js';
import { validateCommand } from '../src/commands/validate.js';
import { verifyCommand } from '../src/commands/verify.js';
import { keygenCommand } from '../src/commands/keygen.js';
import { verifyReportCommand } from '../src/commands/verify-report.js';
import { MATCH_FIELDS } from '../src/journal/match-text.js';
import { DEFAULT_SCENARIO, ROOT, SCENARIOS_DIR } from '../src/kernel/paths.js';
import { FINDINGS } from '../src/protocol/findings.js';
import { schemas } from '../src/protocol/schemas.js';
import { compileScenario, loadScenarioFile } from '../src/core/scenario/scenario.js';
import {} from '../src/core/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { bet, HEADERS, login, result } from './helpers/app.js';
import { listen, post } from './helpers/net.js';
import {
  anchors,
  doc,
  markdownPages,
  README as readme,
  readmeCallbacks,
  readmeSection,
  relativeLinks,
  section,
  shBlocks,
} from './helpers/readme.js';
import { openSimulator } from '../src/app/compose.js';

const cli = doc('docs/cli.md');
// The commands that check (verify, probe, report, tail, reconcile, keygen, verify-report, tenant) have a page of their own.
const cliChecks = doc('docs/cli-checks.md');
const routes = doc('docs/routes.md');
const scenarios = doc('docs/scenarios.md');
// Pages another branch writes; drop a name once its page is merged (the tests then check it).
const PENDING = new Set<string>();
const has = (page: string, s: string) => page.includes(`\`${s}\``);

/** The section of docs/cli.md (or docs/cli-checks.md) that documents one command. */
const commandSection = (name: string) =>
  cli.includes(`## \`wallet-sim ${name}\``) ? section(cli, `\`wallet-sim ${name}\``) : section(cliChecks, `\`wallet-sim ${name}\``);

t.test('every start option and its env var, in docs/cli.md', async (t) => {
  const start = commandSection('start');
  for (const o of startCommand().options) {
    t.ok(has(start, o.long!) || start.includes(`\`${o.long} `), `${o.long} is in docs/cli.md`);
    t.ok(has(start, o.envVar!), `${o.envVar} is in docs/cli.md`);
  }
});

t.test('every other command, each option with its env var, in docs/cli.md', async (t) => {
  const commands: Command[] = [
    validateCommand(),
    openapiCommand(),
    sendCommand(),
    verifyCommand(),
    probeCommand(),
    reportCommand(),
    tailCommand(),
    keygenCommand(),
    verifyReportCommand(),
  ];
  for (const c of commands) {
    const text = commandSection(c.name());
    t.ok(
      cli.includes(`[\`${c.name()}\`](#wallet-sim-${c.name()})`) || cli.includes(`[\`${c.name()}\`](cli-checks.md#wallet-sim-${c.name()})`),
      `${c.name()} is in the command table`,
    );
    for (const o of c.options.filter((o) => !o.hidden)) {
      t.ok(
        has(text, o.long!) || text.includes(`\`${o.long} `) || text.includes(`\`${o.long}\`,`),
        `${c.name()} ${o.long} is in docs/cli.md`,
      );
      if (o.envVar) t.ok(has(text, o.envVar), `${c.name()} ${o.long}: ${o.envVar} is in docs/cli.md`);
    }
  }
});

t.test('every route, in docs/routes.md, and every route the app has is documented', async (t) => {
  const sim = await openSimulator(loadScenarioFile(join(SCENARIOS_DIR, 'default.json')), new MemoryBackend());
  const app = await buildApp({ sim });
  await app.ready();
  const served = routeTable(app.printRoutes({ commonPrefix: false }));
  const documented = [
    'POST /callback',
    'GET /health',
    'GET /openapi.json',
    'GET /docs',
    'GET /ui',
    'GET /admin/players',
    'GET /admin/players/:user_id',
    'PUT /admin/players/:user_id',
    'POST /admin/reset',
    'GET /admin/journal',
    'DELETE /admin/journal',
    'GET /admin/scenario',
    'GET /admin/scenario/rules',
    'GET /admin/scenarios',
    'GET /admin/events',
    'PUT /admin/scenario',
    'GET /admin/report',
  ];
  for (const r of documented) {
    t.ok(has(routes, r), `${r} is in docs/routes.md`);
    const [method, path] = r.split(' ');
    t.ok(app.hasRoute({ method: method as 'GET', url: path! }), `${r} exists`);
  }
  // Swagger UI's and the dashboard's own files (wildcards), and the redirect of / (described beside GET /ui), aside.
  const own = served.filter((r) => !/ \/(docs|ui)\/|\*/.test(r) && r !== 'GET /');
  t.ok(own.length >= documented.length, 'the routes were collected');
  for (const r of own) t.ok(has(routes, r), `${r} (served) is in docs/routes.md`);
  await app.close();
});

/** `METHOD /path` of every route in Fastify's printRoutes() tree (HEAD aside). */
function routeTable(tree: string): string[] {
  const paths: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^(.*?)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    paths[depth] = (depth > 0 ? paths[depth - 1]! : '') + m[2]!;
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) out.push(`${method} ${paths[depth]}`);
  }
  return out;
}

t.test('every journal filter: in the route table, its own table and the tail usage, as the code takes them', async (t) => {
  const row = (page: string, start: string) => page.split('\n').find((l) => l.startsWith(start)) ?? '';
  const journalRow = row(routes, '| `GET /admin/journal` |');
  const filters = section(routes, 'Journal filters', 3);
  const tailUsage = row(commandSection('tail'), '`wallet-sim tail ');
  const tail = tailCommand();
  for (const name of Object.keys(MATCH_FIELDS)) {
    t.ok(journalRow.includes(`\`${name}\``), `${name} is a filter of GET /admin/journal in the route table`);
    t.ok(filters.includes(`\`${name}\``), `${name} is described under Journal filters`);
    const flag = `--${name.replace(/_/g, '-')}`;
    t.ok(tail.options.some((o) => o.long === flag) && tailUsage.includes(`[${flag}`), `tail ${flag} exists and is in its usage line`);
  }
  t.ok(journalRow.includes('`limit`') && journalRow.includes('`after`'), 'the paging parameters too');
});

t.test('every scenario field, in docs/scenarios.md', async (t) => {
  const scenario = schemas.find((s) => s.$id === 'Scenario') as any;
  const rule = scenario.definitions.rule;
  const fields = [
    ...Object.keys(scenario.properties).filter((k) => k !== '$schema'),
    ...Object.keys(scenario.properties.defaults.properties).map((k) => `defaults.${k}`),
    ...Object.keys(rule.properties.when.properties),
    ...Object.keys(rule.properties.then.properties),
    'times',
  ];
  for (const f of fields)
    t.ok(has(scenarios, f) || has(scenarios, `${f}[]`) || scenarios.includes(`\`${f}.`), `${f} is in docs/scenarios.md`);
});

t.test('every finding code (docs/routes.md) and bundled scenario (docs/scenarios.md)', async (t) => {
  for (const [code, [severity]] of Object.entries(FINDINGS))
    t.ok(routes.includes(`| \`${code}\` | ${severity} |`), `${code} (${severity}) is in docs/routes.md`);
  for (const f of readdirSync(SCENARIOS_DIR))
    t.ok(scenarios.includes(`| \`${f.replace('.json', '')}\` |`), `${f} is described in docs/scenarios.md`);
});

t.test("docs/scenarios.md's example scenario does what the page says", async (t) => {
  const block = /```json\n([\s\S]*?)```/.exec(scenarios)![1]!;
  t.match(scenarios, /the R4 lands on his 2nd \*distinct\* bet/);
  const sim = await openSimulator(compileScenario(JSON.parse(block), 'docs/scenarios.md'), new MemoryBackend());
  const app = await buildApp({ sim });
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  t.equal((await post(url, login('alice'), HEADERS)).body.code, 'R2', 'alice is locked out');
  const usd = { currency: 'USD' };
  const first = bet('bob', 'G1', [['1', 'P', 10]], usd);
  t.equal((await post(url, first, HEADERS)).error !== undefined, true, "bob's first bet: reply dropped");
  t.equal((await post(url, first, HEADERS)).body.code, 'R0', 'its retry replays (the 2nd bet seen)');
  t.equal(
    (await post(url, bet('bob', 'G2', [['1', 'P', 10]], usd), HEADERS)).body.code,
    'R4',
    "bob's 3rd bet callback bounces: his 2nd distinct bet (the page says so)",
  );
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
      ['login', 'bet', 'bet_result', 'login', 'bet'],
      'every body is complete JSON',
    );

    const sim = await openSimulator(loadScenarioFile(DEFAULT_SCENARIO), new MemoryBackend()); // what npm start runs
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
    // A newcomer's first report and dashboard: nothing red they were not told to expect.
    const report = (await app.inject({ url: '/admin/report' })).json<{ checks: { id: string; status: string; severity: string }[] }>();
    const failing = report.checks.filter((c) => c.status === 'fail');
    t.same(
      failing.map((c) => `${c.id} (${c.severity})`),
      ['BET_WITHIN_REPORTED_BALANCE (warning)'],
      'only the warning the README announces fails',
    );
    for (const c of failing) t.match(section, `\`${c.id}\` failing, as a *warning*`, `the README says ${c.id} will fail`);
  },
);

t.test('the spec the README links to ships in the package', async (t) => {
  t.match(readme, /\[`docs\/spec\/callbacks\.md`\]\(docs\/spec\/callbacks\.md\)/);
  t.notMatch(readme, /\]\(\.\.\//, 'no link leaves the repository');
  t.ok(existsSync(join(ROOT, 'docs/spec/callbacks.md')), 'docs/spec/callbacks.md exists');
  const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
  t.ok(files.includes('docs'), 'package.json files has docs/, so the installed README links work');
  // Every page the package ships links only to what it ships, and to what is there: an installed
  // copy has no src/ or test/ beside it.
  const shipped = [...markdownPages(), 'bench/results/history.md'].filter((p) => files.some((f) => p === f || p.startsWith(`${f}/`)));
  t.ok(shipped.includes('bench/results/history.md') && shipped.includes('docs/cli.md'), `${shipped.length} shipped pages`);
  for (const page of shipped) {
    const dir = page.includes('/') ? page.slice(0, page.lastIndexOf('/')) : '.';
    for (const { file } of relativeLinks(doc(page))) {
      const target = join(dir, file).replace(/^\.\//, '');
      if (file === '' || PENDING.has(target)) continue;
      t.ok(existsSync(join(ROOT, target)), `${page} links to ${target}: it exists`);
      t.ok(
        files.some((f) => target.startsWith(`${f}/`) || target === f),
        `${page} links to ${target}: in the package (package.json files)`,
      );
    }
  }
});

t.test('the README is the front door: at most 15,000 bytes', async (t) => {
  const bytes = Buffer.byteLength(readme);
  t.ok(bytes <= 15_000, `README.md is ${bytes} bytes; reference material belongs in docs/`);
});

t.test('every relative link of README.md, CONTRIBUTING.md and docs/ points to a file (and heading) that exists', async (t) => {
  for (const page of markdownPages()) {
    const dir = page.includes('/') ? page.slice(0, page.lastIndexOf('/')) : '.';
    for (const { file, anchor } of relativeLinks(doc(page))) {
      const target = file === '' ? page : join(dir, file).replace(/^\.\//, '');
      if (PENDING.has(target)) continue;
      t.ok(existsSync(join(ROOT, target)), `${page}: ${file || '#' + anchor} exists`);
      t.notOk(target.startsWith('..'), `${page}: ${file} stays in the repository`);
      if (anchor && target.endsWith('.md') && existsSync(join(ROOT, target)))
        t.ok(anchors(doc(target)).has(anchor), `${page}: ${target}#${anchor} is a heading`);
    }
  }
});

t.test('nothing cites a file outside the repository', async (t) => {
  const outside = /DESIGN\.md|\.\.\/shared|research\//;
  const files = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(`${dir}/${e.name}`) : /\.(md|ts|tsx|js|mjs|json|css|html)$/.test(e.name) ? [`${dir}/${e.name}`] : [],
    );
  const checked = [
    'README.md',
    'CONTRIBUTING.md',
    ...['docs', 'src', 'ui/src', 'test', 'bench', 'scripts', 'schemas', 'scenarios'].flatMap(files),
  ].filter((f) => !/^bench\/results\/.*\.json$/.test(f)); // a bench run's own output (kept out of git) names what it compared
  t.ok(checked.length > 100, `${checked.length} files checked`);
  for (const f of checked) {
    const hit = outside.exec(readFileSync(join(ROOT, f), 'utf8'));
    if (hit) t.fail(`${f} cites ${hit[0]}: cite docs/design.md (or the page that holds it) instead`);
  }
});
