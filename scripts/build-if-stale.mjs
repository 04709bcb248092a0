// `npm start`'s prestart: builds only when a source is newer than what the build wrote, so a start
// with an up-to-date dist/ takes a second, not a full tsc + esbuild run. Plain JS: it runs before
// anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const say = (line) => process.stderr.write(`${line}\n`);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What `npm run build` reads to write dist/src and dist/ui. */
const SOURCES = ['src', 'ui/src', 'ui/index.html', 'ui/build.mjs', 'ui/tsconfig.json', 'tsconfig.json', 'package.json'];
/** Files every build rewrites (tsc emits every file each run; ui/build.mjs rewrites dist/ui). */
const OUTPUTS = ['dist/src/cli.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/ui/index.html', 'dist/ui/app.js'];

/** The newest modification time of a file, or of a folder and anything below it (a deleted file changes its folder). */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

// npm keeps `npm start --port 9000` for itself (as npm_config_port): say how to pass it on.
for (const name of ['port', 'host', 'scenario', 'store', 'data', 'log_level']) {
  const value = process.env[`npm_config_${name}`];
  if (value !== undefined && process.env.npm_lifecycle_event === 'prestart') {
    // `npm start --port 9000` gives npm_config_port=true and 9000 as an argument.
    const flag = `--${name.replaceAll('_', '-')}`;
    const example = `${flag} ${value === 'true' ? '<value>' : value}`;
    say(`wallet-sim: npm took ${flag} for itself; write npm start -- ${example} (npm passes what follows -- on to wallet-sim)`);
  }
}

const missing = OUTPUTS.filter((f) => !existsSync(join(root, f)));
const built = missing.length ? 0 : Math.min(...OUTPUTS.map((f) => statSync(join(root, f)).mtimeMs));
const changed = SOURCES.filter((f) => existsSync(join(root, f))).find((f) => newest(join(root, f)) > built);
if (missing.length || changed) {
  const why = missing.length ? `${missing[0]} missing` : `${changed} changed since the last build`;
  // --check: only say whether a build is due (exit 1), as a test does before it times a start.
  if (process.argv.includes('--check')) {
    say(`wallet-sim: a build is due (${why})`);
    process.exit(1);
  }
  say(`wallet-sim: building (${why})…`);
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) {
    say('wallet-sim: the build failed (see above); fix it, or run npm run build to see every error');
    process.exit(build.status ?? 1);
  }
}
