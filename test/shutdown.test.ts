// SIGTERM answers what is in flight (issue 15, item 3): the built CLI, real sockets, a file store
// that a second start reads back to see what was applied.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bet, HEADERS, TEST_SCENARIO } from './helpers/app.js';
import { post } from './helpers/net.js';
import { eventually, start } from './helpers/spawn-cli.js';

t.setTimeout(180_000);
// One case at a time: the first case's chain (bets applied, SIGTERM, a late request) must fit in DELAY_MS.

const BETS = 10;
// Long enough that all bets are applied and seen before any reply is due, even on a busy machine.
const DELAY_MS = 8000;

function scenarioFile(t: Test, delayMs: number): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-shutdown-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'scenario.json');
  writeFileSync(
    file,
    JSON.stringify({
      ...TEST_SCENARIO,
      name: 'slow-bets',
      rules: [{ name: 'slow', when: { event_type: 'bet' }, then: { delay_ms: delayMs } }],
    }),
  );
  return { dir, file };
}

const usdBet = (user: string) => bet(user, `G-${user}`, [['1', 'P', 10]], { currency: 'USD' });

t.test('SIGTERM while bets are delayed: every caller gets its R0, a request arriving meanwhile gets 503 and changes nothing', async (t) => {
  const { dir, file } = scenarioFile(t, DELAY_MS);
  const data = join(dir, 'data.json');
  const args = [
    '--port',
    '0',
    '--log-level',
    'silent',
    '--scenario',
    file,
    '--store',
    'file',
    '--data',
    data,
    '--shutdown-grace-ms',
    '60000',
    '--headers-timeout-ms',
    '60000',
    '--request-timeout-ms',
    '60000',
  ];
  const sim = await start(t, args);
  const url = `${sim.url}/callback`;

  const users = Array.from({ length: BETS }, (_, i) => `p${i}`);
  let answered = 0;
  const replies = users.map((u) =>
    post(url, usdBet(u), HEADERS).then((r) => {
      answered++;
      return r;
    }),
  );
  // A caller that has begun its request line but not finished its headers when the signal comes.
  const late = connect(sim.port, '127.0.0.1');
  let lateReply = '';
  late.setEncoding('utf8').on('data', (c: string) => {
    lateReply += c;
  });
  const lateClosed = new Promise<void>((r) => late.on('close', () => r()));
  late.on('error', () => {
    /* the reply, or its absence, is what is checked */
  });
  await new Promise<void>((r) => late.on('connect', () => r()));
  late.write(`POST /callback HTTP/1.1\r\nHost: 127.0.0.1:${sim.port}\r\n`);

  // Every bet is applied (and durable) before its delayed reply: wait until all are debited.
  const players = async () => (await (await fetch(`${sim.url}/admin/players`)).json()) as { user_id: string; balance: number }[];
  t.ok(
    await eventually(async () => (await players()).filter((p) => users.includes(p.user_id) && p.balance === 990).length === BETS, 30_000),
    'all bets applied',
  );
  t.equal(answered, 0, 'none answered yet: they are in their delay when the signal comes');

  sim.child.kill('SIGTERM');
  t.ok(await eventually(async () => /SIGTERM received, closing/.test(sim.stderr()), 30_000), 'shutdown has begun');
  const lateBody = JSON.stringify(usdBet('late'));
  late.write(
    `Content-Type: application/json\r\nApi-Id: sandbox\r\nApi-Key: sandbox-key\r\nCallback-URL: x\r\nContent-Length: ${lateBody.length}\r\n\r\n${lateBody}`,
  );

  const got = await Promise.all(replies);
  t.same(
    got.map((r) => r.error ?? r.body.code),
    users.map(() => 'R0'),
    'every bet in flight got its R0 (was ECONNRESET)',
  );
  t.same(
    got.map((r) => r.body.latest_balance),
    users.map(() => 990),
  );

  await lateClosed;
  t.match(lateReply, /^HTTP\/1\.1 503 /, 'the request that arrived during shutdown: 503');
  t.match(lateReply, /\r\nconnection: close\r\n/i, 'with Connection: close');
  t.match(lateReply, /"error":"SHUTTING_DOWN"/);
  t.match(lateReply, /shutting down and did not process this request; send it again/);

  const ran = await sim.exited;
  t.equal(ran.code, 0, 'exit 0 after the last reply');
  t.notMatch(ran.stderr, /were cut/, 'nothing was cut');

  const again = await start(t, args);
  const after = (await (await fetch(`${again.url}/admin/players`)).json()) as { user_id: string; balance: number }[];
  t.same(
    users.map((u) => after.find((p) => p.user_id === u)?.balance),
    users.map(() => 990),
    'what was answered R0 is durable',
  );
  t.equal(
    after.find((p) => p.user_id === 'late'),
    undefined,
    'the refused request changed nothing',
  );
});

t.test('past --shutdown-grace-ms the connections still waiting are cut, and stderr says so', async (t) => {
  const { file } = scenarioFile(t, 120_000);
  const sim = await start(t, ['--port', '0', '--log-level', 'silent', '--scenario', file], { WALLET_SIM_SHUTDOWN_GRACE_MS: '500' });
  const reply = post(`${sim.url}/callback`, usdBet('p1'), HEADERS);
  t.ok(
    await eventually(
      async () => ((await (await fetch(`${sim.url}/admin/players/p1`)).json()) as { balance?: number }).balance === 990,
      30_000,
    ),
    'the bet is applied and waiting',
  );
  sim.child.kill('SIGTERM');
  const ran = await sim.exited;
  t.equal((await reply).error, 'ECONNRESET', 'the caller past the grace sees its connection cut');
  t.match(
    ran.stderr,
    '1 connection still unanswered after --shutdown-grace-ms 500 was cut (requests in flight: a callback delayed by delay_ms',
  );
  t.equal(ran.code, 0);
});
