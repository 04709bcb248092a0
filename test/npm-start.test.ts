// `npm start` (issue 22, item 3): it builds only when a source is newer than dist/ (the script
// copied into a scratch package whose "build" counts its runs), and a SIGTERM sent to npm stops
// the server it started — a real npm, a real port.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ROOT } from '../src/kernel/paths.js';
import { BOOT_MS, cleanEnv, collect, eventually, LISTENING } from './helpers/spawn-cli.js';

const SCRIPT = join(ROOT, 'scripts/build-if-stale.mjs');
const OUTPUTS = ['dist/src/cli.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/ui/index.html', 'dist/ui/app.js'];
const hasNpm = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;

/** A scratch package with the script, a source file and a "build" that writes the outputs and counts its runs. */
function scratch(t: Test): { dir: string; runs: () => number; check: (env?: Record<string, string>) => ReturnType<typeof spawnSync> } {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-stale-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'src'));
  copyFileSync(SCRIPT, join(dir, 'scripts/build-if-stale.mjs'));
  writeFileSync(join(dir, 'src/a.ts'), 'export {};\n');
  const build = `const fs = require('node:fs');
if (fs.existsSync('FAIL')) process.exit(3);
for (const f of ${JSON.stringify(OUTPUTS)}) { fs.mkdirSync(require('node:path').dirname(f), { recursive: true }); fs.writeFileSync(f, ''); }
fs.appendFileSync('runs', 'x');`;
  writeFileSync(join(dir, 'build.cjs'), build);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, scripts: { build: 'node build.cjs' } }));
  const runs = () => (existsSync(join(dir, 'runs')) ? readFileSync(join(dir, 'runs'), 'utf8').length : 0);
  const check = (env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(dir, 'scripts/build-if-stale.mjs')], { cwd: dir, env: cleanEnv(env), encoding: 'utf8' });
  return { dir, runs, check };
}

t.test(
  'prestart builds when dist/ is missing or older than a source, and only then',
  { skip: !hasNpm && 'npm is not on PATH' },
  async (t) => {
    const { dir, runs, check } = scratch(t);
    let ran = check();
    t.equal(ran.status, 0);
    t.match(ran.stderr, /building \(dist\/src\/cli\.js missing\)/);
    t.equal(runs(), 1);

    ran = check();
    t.equal(ran.status, 0);
    t.equal(ran.stderr, '', 'up to date: silent');
    t.equal(runs(), 1, 'and no build');

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'src/a.ts'), later, later);
    ran = check();
    t.match(ran.stderr, /building \(src changed since the last build\)/);
    t.equal(runs(), 2);

    writeFileSync(join(dir, 'FAIL'), '');
    const newer = new Date(Date.now() + 120_000);
    utimesSync(join(dir, 'src/a.ts'), newer, newer);
    ran = check();
    t.equal(ran.status, 3, "the build's exit code: npm start does not start");
    t.match(ran.stderr, /the build failed \(see above\); fix it, or run npm run build/);
  },
);

t.test('npm start --port 9000 (without --): says to write npm start -- --port 9000', async (t) => {
  const { check } = scratch(t);
  const ran = check({ npm_lifecycle_event: 'prestart', npm_config_port: 'true' });
  t.match(ran.stderr, /npm took --port for itself; write npm start -- --port <value>/);
});

/** Every process below `pid` (Linux /proc; empty elsewhere). */
function descendants(pid: number): number[] {
  if (!existsSync('/proc/self/stat')) return [];
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  const below = (p: number): number[] => [...parents].filter(([, parent]) => parent === p).flatMap(([child]) => [child, ...below(child)]);
  return below(pid);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => resolve(socket.destroy() && true)).on('error', () => resolve(false));
  });

// Right after a source changed npm start builds first, rewriting dist/ under the other tests: skip then.
const due = spawnSync(process.execPath, [SCRIPT, '--check'], { cwd: ROOT, encoding: 'utf8' });
const skipStart = !hasNpm
  ? 'npm is not on PATH'
  : due.status !== 0 && `dist/ is not up to date (${due.stderr.trim()}): run npm run build first`;

t.test('SIGTERM to `npm start -- --port 0` stops the server: the port closes, no process of it remains', { skip: skipStart }, async (t) => {
  const npm = spawn('npm', ['start', '--', '--port', '0', '--log-level', 'silent'], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const io = collect(npm);
  t.teardown(() => {
    for (const pid of [...descendants(npm.pid!), npm.pid!]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  const listening = await eventually(
    async () =>
      io
        .stdout()
        .split('\n')
        .some((l) => LISTENING.test(l)),
    BOOT_MS,
  );
  t.ok(listening, `npm start printed the listening line; stderr: ${io.stderr()}`);
  const port = Number(
    LISTENING.exec(
      io
        .stdout()
        .split('\n')
        .find((l) => LISTENING.test(l))!,
    )![2],
  );
  t.notMatch(io.stderr(), /building/, 'dist/ was up to date: no build');
  const server = descendants(npm.pid!);
  t.ok(server.length > 0, 'the server runs below npm');
  t.ok(await accepts(port));

  npm.kill('SIGTERM');
  const ran = await io.exited;
  // npm forwards the signal and exits with the server's code: 0 after a clean close (an npm that
  // dies of the signal itself is fine too); a crash would be another code.
  t.ok(ran.code === 0 || ran.signal === 'SIGTERM', `npm ended cleanly (code ${ran.code}, signal ${ran.signal})`);
  t.ok(await eventually(async () => server.every((pid) => !alive(pid)), BOOT_MS), 'no process of it remains');
  t.equal(await accepts(port), false, 'the port is closed');
  t.match(ran.stderr, /SIGTERM received, closing/, 'the server itself got the signal');
});
