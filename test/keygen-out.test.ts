// A file or directory a command writes (keygen --out, openapi --out, --junit, --html, --signed) where
// a directory cannot be made: one line and an exit, never a hang (Node 20's recursive mkdir loops for
// ever on ENOENT under /proc). Spawned: a hang shows only there.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CLI, cleanEnv, collect } from './helpers/spawn-cli.js';
import { tempDir } from './helpers/temp.js';
import { checkWritable, OutputFileError, writeOutput } from '../src/commands/output-file.js';

/** A command with these args, killed after 20 s (a hang is the defect): the exit, or 'hung'. */
async function run(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const ran = await collect(child).exited;
  clearTimeout(timer);
  return { ...ran, hung: ran.signal === 'SIGKILL' };
}

t.test(
  'a directory the file system will not create (/proc/nope): said, exit 1, no hang',
  { skip: !existsSync('/proc/self') && 'no /proc here' },
  async (t) => {
    const r = await run(['keygen', '--out', '/proc/nope/keys']);
    t.notOk(r.hung, 'it ended by itself');
    t.equal(r.code, 1);
    t.equal(
      r.stderr.trim(),
      'wallet-sim keygen: cannot create the directory /proc/nope (ENOENT: /proc takes no new directory); choose a directory you can write to with --out',
    );
  },
);

t.test('missing parents are still created, the new directories 0700', async (t) => {
  const out = join(tempDir('wallet-sim-keygen-'), 'a', 'b');
  const r = await run(['keygen', '--out', out]);
  t.equal(r.code, 0, r.stderr);
  t.ok(existsSync(join(out, 'wallet-sim-signing.pem')));
  t.equal(statSync(out).mode & 0o777, 0o700);
  t.equal(statSync(join(out, '..')).mode & 0o777, 0o700);
});

t.test(
  "a report's or openapi's file under /proc/nope: refused before the work, exit 1, no hang",
  // (/proc is writable for root only; another user is refused it for its permissions)
  { skip: (!existsSync('/proc/self') && 'no /proc here') || (process.getuid?.() !== 0 && 'not root') },
  async (t) => {
    const said = (path: string, flag: string) =>
      `cannot create the directory /proc/nope (ENOENT: /proc takes no new directory); choose a file in a directory you can write to with ${flag}`;
    // Checked before the work (a probe run is not lost to it), and again when written.
    t.throws(() => checkWritable('/proc/nope/x.xml', '--junit'), new OutputFileError(said('/proc/nope/x.xml', '--junit')));
    t.throws(() => writeOutput('/proc/nope/deeper/x.html', 'x', '--html'), new OutputFileError(said('/proc/nope/deeper/x.html', '--html')));
    t.notOk(existsSync('/proc/nope'));
    const r = await run(['openapi', '--out', '/proc/nope/openapi.json']);
    t.notOk(r.hung, 'it ended by itself');
    t.equal(r.code, 1);
    t.equal(r.stderr.trim(), `wallet-sim openapi: ${said('/proc/nope/openapi.json', '--out')}`);
  },
);

t.test('a new directory on the way is still made for a report file, and the check leaves none behind', async (t) => {
  const dir = tempDir('wallet-sim-out-');
  checkWritable(join(dir, 'a', 'b', 'x.xml'), '--junit');
  t.notOk(existsSync(join(dir, 'a')), 'the check made and removed it');
  writeOutput(join(dir, 'a', 'b', 'x.xml'), '<x/>', '--junit');
  t.ok(existsSync(join(dir, 'a', 'b', 'x.xml')));
});
