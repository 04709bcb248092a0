// `wallet-sim keygen --out` where a directory cannot be made: one line and an exit, never a hang
// (Node 20's recursive mkdir loops for ever on ENOENT under /proc). Spawned: a hang shows only there.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CLI, cleanEnv, collect } from './helpers/spawn-cli.js';
import { tempDir } from './helpers/temp.js';

/** keygen with these args, killed after 20 s (a hang is the defect): the exit, or 'hung'. */
async function keygen(args: string[]) {
  const child = spawn(process.execPath, [CLI, 'keygen', ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const ran = await collect(child).exited;
  clearTimeout(timer);
  return { ...ran, hung: ran.signal === 'SIGKILL' };
}

t.test(
  'a directory the file system will not create (/proc/nope): said, exit 1, no hang',
  { skip: !existsSync('/proc/self') && 'no /proc here' },
  async (t) => {
    const r = await keygen(['--out', '/proc/nope/keys']);
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
  const r = await keygen(['--out', out]);
  t.equal(r.code, 0, r.stderr);
  t.ok(existsSync(join(out, 'wallet-sim-signing.pem')));
  t.equal(statSync(out).mode & 0o777, 0o700);
  t.equal(statSync(join(out, '..')).mode & 0o777, 0o700);
});
