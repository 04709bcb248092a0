import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../../src/kernel/paths.js';
import { bet } from '../helpers/app.js';

/**
 * The built CLI over real HTTP, killed with SIGKILL while bets are in flight, restarted on the
 * same file. Nothing here depends on timing: the kill comes after a number of acknowledged bets,
 * and every wait is for an event (the listen line, the exit).
 */
const CLI = join(ROOT, 'dist/src/cli.js');
const HEADERS = {
  'content-type': 'application/json',
  'api-id': 'sandbox',
  'api-key': 'sandbox-key',
  'callback-url': 'http://provider.test/cb',
};
const PLAYERS = ['crash-a', 'crash-b', 'crash-c'];
const INITIAL = 1000; // auto-created players of the default scenario: 1000 USD
const AMOUNT = 1;

interface Wallet {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

function startWallet(data: string, env: Record<string, string> = {}): Promise<Wallet> {
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--store', 'file', '--data', data, '--log-level', 'warn'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /wallet-sim listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) resolve({ url: m[1]!, child, exited, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`wallet-sim exited with ${code} before listening:\n${output}`)));
  });
}

let seq = 0;
const betBody = (user: string) => bet(user, `g-crash-${process.pid}-${++seq}`, [['1', 'P', AMOUNT]], { currency: 'USD' });
type BetBody = ReturnType<typeof betBody>;

async function post(url: string, body: object): Promise<{ code: string; latest_balance?: number }> {
  const res = await fetch(`${url}/callback`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  return (await res.json()) as { code: string; latest_balance?: number };
}

/** Streams bets from `workers` concurrent senders until SIGKILL, sent once `killAfter` bets are acknowledged. */
async function streamAndKill(
  w: Wallet,
  workers: number,
  killAfter: number,
): Promise<{ sent: BetBody[]; acked: BetBody[]; exit: number | null }> {
  const sent: BetBody[] = [];
  const acked: BetBody[] = [];
  let killed = false;
  const worker = async (i: number) => {
    for (let n = 0; !killed; n++) {
      const body = betBody(PLAYERS[(i + n) % PLAYERS.length]!);
      sent.push(body);
      try {
        const reply = await post(w.url, body);
        if (reply.code !== 'R0') throw new Error(`bet ${body.transaction_id} got ${JSON.stringify(reply)}`);
        acked.push(body); // an R0 read after the kill was still sent before it: acknowledged too
        if (acked.length >= killAfter && !killed) {
          killed = true;
          w.child.kill('SIGKILL');
        }
      } catch (e) {
        if (!killed) throw e; // before the kill every bet must succeed
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));
  return { sent, acked, exit: await w.exited };
}

const balances = async (url: string) => {
  const out = new Map<string, number>();
  for (const p of PLAYERS)
    out.set(
      p,
      (
        await post(url, {
          transaction_id: `login-${p}-${++seq}`,
          event_type: 'login',
          timestamp: Math.floor(Date.now() / 1000),
          feedback_data: 'fb',
          user_id: p,
        })
      ).latest_balance!,
    );
  return out;
};

t.before(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
});

// Four CLI start-ups and ~1,500 HTTP round trips: generous on a loaded CI machine.
t.setTimeout(180_000);

t.test('kill -9 mid-stream loses no acknowledged bet and never debits a retry twice', async (t) => {
  const t0 = performance.now();
  const lap = (what: string) => t.comment(`${what}: ${Math.round(performance.now() - t0)} ms`);
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const data = join(dir, 'wallet.json');
  // Small compaction threshold: the kills also land during compactions and right after them.
  const env = { WALLET_SIM_COMPACT_MIN_BYTES: '20000' };

  const everSent: BetBody[] = [];
  const everAcked = new Set<string>();
  for (let round = 1; round <= 3; round++) {
    const w = await startWallet(data, env);
    const { sent, acked, exit } = await streamAndKill(w, 24, 120);
    t.equal(exit, null, `round ${round}: the wallet died of SIGKILL`);
    everSent.push(...sent);
    for (const b of acked) everAcked.add(b.transaction_id);
    lap(`round ${round} killed`);
    t.ok(acked.length >= 120, `round ${round}: ${acked.length} bets acknowledged of ${sent.length} sent before and around the kill`);
  }

  const w = await startWallet(data, env);
  t.teardown(() => {
    w.child.kill('SIGKILL');
  });
  const restarted = await balances(w.url);
  lap('restarted');

  // Retry every bet ever sent, one at a time per player: an applied one replays (balance unchanged),
  // one that never made it debits now. Acknowledged ones must all replay.
  const running = new Map(restarted);
  const applied = new Map(PLAYERS.map((p) => [p, 0]));
  const lostAcked: string[] = [];
  const odd: string[] = [];
  // Players are independent: each player's bets are retried in order, the players side by side.
  const eachPlayer = (retry: (body: BetBody) => Promise<void>) =>
    Promise.all(
      PLAYERS.map(async (p) => {
        for (const body of everSent) if (body.user_id === p) await retry(body);
      }),
    );
  await eachPlayer(async (body) => {
    const before = running.get(body.user_id)!;
    const reply = await post(w.url, body);
    if (reply.code === 'R0' && reply.latest_balance === before) applied.set(body.user_id, applied.get(body.user_id)! + 1);
    else if (reply.code === 'R0' && reply.latest_balance === before - AMOUNT) {
      if (everAcked.has(body.transaction_id)) lostAcked.push(body.transaction_id);
    } else odd.push(`${body.transaction_id}: ${JSON.stringify(reply)} (balance was ${before})`);
    running.set(body.user_id, reply.latest_balance!);
  });
  lap('retried');
  t.same(odd, [], 'every retry is R0, and either replays or debits exactly once');
  t.same(lostAcked, [], `every one of the ${everAcked.size} acknowledged bets was kept`);
  for (const p of PLAYERS) {
    t.equal(
      restarted.get(p),
      INITIAL - AMOUNT * applied.get(p)!,
      `${p}: balance after restart = ${INITIAL} - applied bets (${applied.get(p)})`,
    );
  }
  // A second retry pass changes nothing at all.
  const debited: string[] = [];
  await eachPlayer(async (body) => {
    const reply = await post(w.url, body);
    if (reply.code !== 'R0' || reply.latest_balance !== running.get(body.user_id)) debited.push(body.transaction_id);
  });
  t.same(debited, [], 'a second retry of every bet replays and debits nothing');
  w.child.kill('SIGTERM');
  t.equal(await w.exited, 0, 'a clean stop after all that');
  const doc = JSON.parse((await readFile(data, 'utf8')).split('\n')[0]!);
  t.equal(doc.format, 'wallet-sim-store', 'the data file is the whole state after a clean stop');
});

t.test('the CLI refuses to start on a corrupt data file, names it, and leaves it alone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-corrupt-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const data = join(dir, 'wallet.json');
  const corrupt = '{"format":"wallet-sim-store","version":1,"log_seq":0,"changes":[{"op":"player","user_id":"p","bal';
  await writeFile(data, corrupt);
  const err = await startWallet(data).then(
    () => undefined,
    (e: Error) => e,
  );
  t.ok(err, 'it did not start');
  t.match(err?.message, /exited with 1/);
  t.match(err?.message, `cannot open the file store, nothing started:\n${data}: is not valid JSON`);
  t.equal(await readFile(data, 'utf8'), corrupt, 'the file is untouched');
});
