import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { ROOT } from '../../src/kernel/paths.js';
import { FilePersistence } from '../../src/backends/file/file-persistence.js';
import { acquireLock, lockNotWritten, processStart, processState } from '../../src/backends/file/lock-file.js';

type Test = { teardown: (fn: () => unknown) => void };

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-lock-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The pid of a process that has exited: what a kill -9 leaves in a lock. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

function sleeper(t: Test): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  return child;
}

const bootId = () =>
  readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (s) => s.trim(),
    () => undefined,
  );

/** A lock as wallet-sim writes it, for a given owner. */
async function writeLock(data: string, owner: { pid: number; start?: string }): Promise<void> {
  const token = 'feedfacefeedface';
  await mkdir(`${data}.lock`);
  await writeFile(join(`${data}.lock`, `owner.${token}`), JSON.stringify({ ...owner, boot: await bootId(), host: hostname(), token }));
}

// Each child waits for "go <data>", tries to take the lock and answers "won" or "lost"; it keeps
// what it won until its stdin closes. All children get "go" in the same tick.
const RACER = `
import { createInterface } from 'node:readline';
const { acquireLock } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/backends/file/lock-file.js')).href)});
console.log('ready');
for await (const line of createInterface({ input: process.stdin })) {
  const data = line.slice(3);
  try { await acquireLock(data); console.log('won ' + data); } catch (e) { console.log('lost ' + data + ' ' + e.message.split('\\n')[0]); }
}`;

t.test('racers on a stale lock: exactly one takes it over, every time', async (t) => {
  const dir = await tempDir(t);
  const RACERS = 8;
  const ROUNDS = 8;
  const racers = Array.from({ length: RACERS }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', RACER], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  t.teardown(() => {
    for (const r of racers) r.kill('SIGKILL');
  });
  const answers = racers.map((r) => createInterface({ input: r.stdout! })[Symbol.asyncIterator]());
  for (const a of answers) t.equal((await a.next()).value, 'ready');
  for (let round = 0; round < ROUNDS; round++) {
    const data = join(dir, `wallet-${round}.json`);
    // Half the rounds a lock of this wallet-sim, half a plain pid file of an earlier one; both dead.
    if (round % 2) await writeLock(data, { pid: await deadPid(), start: '1' });
    else await writeFile(`${data}.lock`, `${await deadPid()}\n`);
    for (const r of racers) r.stdin!.write(`go ${data}\n`);
    const replies = await Promise.all(answers.map(async (a) => (await a.next()).value as string));
    const won = replies.filter((r) => r.startsWith('won '));
    const why = [
      ...new Set(replies.filter((r) => !r.startsWith('won ')).map((r) => r.replace(/^lost \S+ \S+: /, '').replace(/ \d+.*/, ''))),
    ];
    t.equal(won.length, 1, `round ${round}: one winner of ${RACERS}; the others: ${why.join(' / ')}`);
  }
  for (const r of racers) r.stdin!.end();
});

t.test('a lock whose pid now belongs to an unrelated process (a reused pid) is taken over', async (t) => {
  const dir = await tempDir(t);
  const other = sleeper(t);
  await once(other, 'spawn');
  const start = await processStart(other.pid!);
  t.ok(start, 'the start time of a process is known (Linux)');

  const reused = join(dir, 'reused.json');
  await writeLock(reused, { pid: other.pid!, start: String(Number(start) - 5000) });
  const store = await FilePersistence.open(reused);
  await store.close();
  t.same(await readdir(dir).then((n) => n.filter((x) => x.includes('.lock'))), [], 'released on close');

  const held = join(dir, 'held.json');
  await writeLock(held, { pid: other.pid!, start });
  await t.rejects(FilePersistence.open(held), {
    message: new RegExp(
      `held\\.json: is in use by process ${other.pid}, running since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(lock .*held\\.json\\.lock\\); stop that process or use another --data`,
    ),
  });

  // A pid file of an earlier wallet-sim, written before that process started: not its lock.
  const legacy = join(dir, 'legacy.json');
  await writeFile(`${legacy}.lock`, `${other.pid}\n`);
  const hourAgo = new Date(Date.now() - 3600_000);
  await utimes(`${legacy}.lock`, hourAgo, hourAgo);
  const again = await FilePersistence.open(legacy);
  await again.close();
});

t.test('a second store on the same data file in a live process is refused; the first keeps working', async (t) => {
  const dir = await tempDir(t);
  const data = join(dir, 'wallet.json');
  const child = spawn(process.execPath, ['--input-type=module', '-e', RACER], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  t.equal((await answers.next()).value, 'ready');
  child.stdin!.write(`go ${data}\n`);
  t.equal((await answers.next()).value, `won ${data}`);
  await t.rejects(FilePersistence.open(data), {
    message: new RegExp(`wallet\\.json: is in use by process ${child.pid}, running since \\d{4}-\\d\\d-\\d\\dT`),
  });
});

t.test('the same data file by another name (a symbolic link to it, or to its folder) is the same wallet: refused while open', async (t) => {
  const dir = await tempDir(t);
  const data = join(dir, 'wallet.json');
  const first = await FilePersistence.open(data);
  t.teardown(() => first.close());
  await symlink(data, join(dir, 'alias.json'));
  await t.rejects(FilePersistence.open(join(dir, 'alias.json')), { message: /wallet\.json: is in use by this process/ });
  await symlink(dir, `${dir}-link`);
  t.teardown(() => unlink(`${dir}-link`));
  await t.rejects(FilePersistence.open(join(`${dir}-link`, 'wallet.json')), { message: /wallet\.json: is in use by this process/ });
  t.notOk(existsSync(join(dir, 'alias.json.000001.log')), 'no logs of its own beside the link');
});

t.test('two stores on one data file in one process: the second is refused while the first is open', async (t) => {
  const dir = await tempDir(t);
  const data = join(dir, 'wallet.json');
  const first = await FilePersistence.open(data);
  await t.rejects(FilePersistence.open(data), {
    message: new RegExp(
      `wallet\\.json: is in use by this process \\(pid ${process.pid}\\): another simulator in it has it open \\(lock .*wallet\\.json\\.lock\\); close that one first`,
    ),
  });
  await first.close();
  const second = await FilePersistence.open(data);
  t.pass('once the first is closed, the data file opens');
  // A store let go of as a kill -9 would (no close): its lock is this pid's but nobody's, so taken over.
  await second.abandon();
  const third = await FilePersistence.open(data);
  await third.close();
});

// A holder killed but not yet reaped by its parent (a zombie: what a container without an init
// process keeps) holds no files: its lock is stale. The holder's parent here is `sleep`, which
// never waits for children, so the zombie stays until the test ends.
const HOLDER = `
const { acquireLock } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/backends/file/lock-file.js')).href)});
await acquireLock(process.argv[1]);
console.log('won');
setInterval(() => {}, 60000);`;

t.test(
  'a lock held by a killed process not yet reaped (a zombie) is taken over',
  { skip: process.platform !== 'linux' && 'Linux: /proc' },
  async (t) => {
    const dir = await tempDir(t);
    const data = join(dir, 'wallet.json');
    const parent = spawn('sh', ['-c', 'node --input-type=module -e "$HOLDER" "$DATA" & echo $!; exec sleep 600'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, HOLDER, DATA: data, PATH: `${join(process.execPath, '..')}:${process.env.PATH}` },
    });
    t.teardown(() => {
      parent.kill('SIGKILL'); // the zombie goes to init, which reaps it
    });
    const lines = createInterface({ input: parent.stdout! })[Symbol.asyncIterator]();
    const pid = Number((await lines.next()).value);
    t.equal((await lines.next()).value, 'won', `process ${pid} holds the lock`);
    await t.rejects(FilePersistence.open(data), { message: new RegExp(`is in use by process ${pid}`) }, 'while it runs');
    process.kill(pid, 'SIGKILL');
    let state;
    while ((state = await processState(pid)) !== 'Z' && state !== undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    t.equal(state, 'Z', `process ${pid} is a zombie`);
    const store = await FilePersistence.open(data);
    await store.close();
  },
);

t.test('a full disk at start says so, not "check that the folder is writable"', async (t) => {
  // The folder is writable (the lock's own folder was made) and writing its file failed.
  for (const [code, message] of [
    ['ENOSPC', /cannot create the lock \(ENOSPC\): the disk is full; free space on the disk that holds --data/],
    ['EDQUOT', /cannot create the lock \(EDQUOT\): the disk quota is used up/],
    ['EACCES', /cannot create the lock \(EACCES\); check that the folder of --data is writable/],
  ] as const) {
    const refused = lockNotWritten('/data/wallet.json.lock', Object.assign(new Error(`${code}: failed`), { code }));
    t.match(refused.message, message, code);
    t.match(refused.message, '/data/wallet.json.lock', `${code}: names the lock`);
  }
  // A real refusal, the same way: a folder no one may write in (/sys, for root too).
  await t.rejects(acquireLock('/sys/wallet-sim-test.json'), {
    message: /cannot create the lock \((EPERM|EACCES)\); check that the folder of --data is writable/,
  });
});
