// The package as a provider installs it (issue 22, item 4): `npm pack`, the tarball installed into
// a scratch project with no network, then the Node API imported by name, its types checked, a
// callback answered, the dashboard served (dist/ui shipped), and the installed bin run.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ROOT } from '../src/kernel/paths.js';
import { cleanEnv } from './helpers/spawn-cli.js';

t.setTimeout(180_000);
const hasNpm = spawnSync('npm', ['--version']).status === 0;

const sh = (cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> =>
  spawnSync(cmd, args, { cwd, env: cleanEnv({ npm_config_update_notifier: 'false' }), encoding: 'utf8', timeout: 120_000 });
/** Asserts a command exited 0; shows what it printed only when it did not. */
function succeeded(t: Test, r: SpawnSyncReturns<string>, what: string): void {
  if (!t.equal(r.status, 0, what)) t.comment(`exit ${r.status} ${r.error ?? ''}\n${r.stdout}\n${r.stderr}`);
}

/**
 * The scratch project's lock: the tarball, and the package's runtime dependencies exactly as this
 * repository's lock pins them. `npm ci --offline` then needs only the tarballs `npm ci` cached
 * here, not the registry's metadata that resolving version ranges would fetch.
 */
function lockFor(tarball: string): object {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const own = lock.packages['']!;
  const packages: Record<string, object> = {
    '': { name: 'scratch', dependencies: { 'wallet-sim': `file:${tarball}` } },
    'node_modules/wallet-sim': { version: own.version, resolved: `file:${tarball}`, dependencies: own.dependencies, bin: own.bin },
  };
  for (const [path, entry] of Object.entries(lock.packages))
    if (path.startsWith('node_modules/') && !entry.dev && !entry.link) packages[path] = entry;
  return { name: 'scratch', lockfileVersion: 3, requires: true, packages };
}

const USE = `import { startSimulator } from 'wallet-sim';
const sim = await startSimulator({ scenario: 'certification' });
const headers = { 'content-type': 'application/json', 'api-id': 'sandbox', 'api-key': 'sandbox-key' };
const login = { transaction_id: 'pack-1', event_type: 'login', timestamp: Math.floor(Date.now() / 1000), feedback_data: 'fb', user_id: 'cert-r4' };
const reply = await (await fetch(sim.callbackUrl, { method: 'POST', headers, body: JSON.stringify(login) })).json();
const ui = await fetch(sim.url + '/ui');
const players = await sim.players();
const report = await sim.report();
await sim.close();
console.log(JSON.stringify({ code: reply.code, ui: ui.status, players: players.length, scenario: report.scenario }));
`;

const TYPED = `import { startSimulator, type RunningSimulator } from 'wallet-sim';
const sim: RunningSimulator = await startSimulator({ scenario: 'certification', retainTransactions: 5 });
const balance: number = (await sim.players())[0]!.balance;
// @ts-expect-error a port is a number
await startSimulator({ port: '8080' });
export { balance };
`;

t.test(
  'npm pack → npm ci --offline in a scratch project → import { startSimulator } from "wallet-sim"',
  { skip: !hasNpm && 'npm is not on PATH: the packed package is NOT tested' },
  async (t) => {
    t.ok(existsSync(join(ROOT, 'dist/src/index.js')) && existsSync(join(ROOT, 'dist/ui/index.html')), 'built (npm test builds first)');
    const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-pack-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));

    // dist/ is already built: pack it as it is (prepack would build again).
    const packed = sh('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], ROOT);
    succeeded(t, packed, 'npm pack');
    const tarball = readdirSync(dir).find((f) => /^wallet-sim-.*\.tgz$/.test(f));
    t.ok(tarball, 'a tarball');

    const project = join(dir, 'project');
    mkdirSync(project);
    const pkg = { name: 'scratch', private: true, type: 'module', dependencies: { 'wallet-sim': `file:../${tarball}` } };
    writeFileSync(join(project, 'package.json'), JSON.stringify(pkg));
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockFor(`../${tarball}`)));
    const installed = sh('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], project);
    succeeded(t, installed, 'installed offline, from the npm cache that npm ci filled (an ENOTCACHED error: run npm ci in the repository)');

    writeFileSync(join(project, 'use.mjs'), USE);
    const used = sh(process.execPath, ['use.mjs'], project);
    succeeded(t, used, 'a script importing wallet-sim ran');
    t.same(
      JSON.parse(used.stdout || '{}'),
      { code: 'R0', ui: 200, players: 6, scenario: 'certification' },
      'the API, the bundled scenarios and the dashboard ship',
    );

    writeFileSync(join(project, 'typed.ts'), TYPED);
    const tsconfig = {
      module: 'NodeNext',
      target: 'ES2022',
      strict: true,
      noEmit: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: tsconfig, files: ['typed.ts'] }));
    const typed = sh(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], project);
    succeeded(t, typed, 'tsc accepts a typed use and refuses a wrong option (the .d.ts ship)');

    const help = sh(join(project, 'node_modules/.bin/wallet-sim'), ['--help'], project);
    succeeded(t, help, 'node_modules/.bin/wallet-sim --help');
    t.match(help.stdout, /Usage: wallet-sim .*start/s, 'the installed bin runs');
  },
);
