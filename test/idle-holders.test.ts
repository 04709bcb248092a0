// Callers that complete a request and then hold their kept-alive connections idle, reconnecting as
// soon as they are cut (issue 35, item 7): at the connection cap with nothing stalled, the server
// closes the connection idle the longest rather than the newcomer. Real sockets, the built CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSimulator } from '../src/app/start-simulator.js';
import { bet, HEADERS, login, TEST_SCENARIO } from './helpers/app.js';
import { eventually, start } from './helpers/spawn-cli.js';

t.setTimeout(180_000);

/** One callback over `agent` (false: a fresh connection); resolves with its reply code or the error. */
function honest(url: string, agent: Agent | false = false, body: object = login('player-1')): Promise<string> {
  const data = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      `${url}/callback`,
      { method: 'POST', agent, headers: { ...HEADERS, 'content-length': String(Buffer.byteLength(data)) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve(/"code":"(R\d)"/.exec(text)?.[1] ?? `HTTP ${res.statusCode}`));
      },
    );
    req.setTimeout(5000, () => req.destroy(new Error('no reply within 5 s')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(data);
  });
}

interface Attack {
  /** Connections opened so far. */
  connections: number;
  /** Replies the attacker's connections received (each connection's one request). */
  replies: number;
  stop: () => void;
}

/**
 * `count` connections that each send one complete kept-alive request (GET /health), read its reply
 * and then hold the connection idle; with `trickleMs`, the next request's headers then follow one
 * byte every `trickleMs`, the first `trickleMs` after the reply (never complete). Each connection
 * cut is opened again at once.
 */
function idleHolder(port: number, count: number, trickleMs = 0): Attack {
  const sockets = new Set<Socket>();
  let stopped = false;
  const get = `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;
  const attack: Attack = {
    connections: 0,
    replies: 0,
    stop: () => {
      stopped = true;
      for (const s of sockets) s.destroy();
    },
  };
  const open = () => {
    if (stopped) return;
    attack.connections++;
    const socket: Socket = connect(port, '127.0.0.1');
    sockets.add(socket);
    let timer: NodeJS.Timeout | undefined;
    let answered = false;
    socket.on('connect', () => socket.write(get));
    socket.on('data', () => {
      if (answered) return;
      answered = true;
      attack.replies++;
      if (trickleMs) timer = setInterval(() => socket.writable && socket.write('X'), trickleMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      clearInterval(timer);
      setImmediate(open);
    });
  };
  for (let i = 0; i < count; i++) open();
  return attack;
}

const until = async (ok: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
};

for (const trickleMs of [0, 200]) {
  const what = trickleMs ? `then the next request's headers one byte every ${trickleMs} ms` : 'then idle';
  t.test(`callers holding kept-alive connections (one request, ${what}): at least 90% of honest logins are answered`, async (t) => {
    // Time-outs far above the test's length: only the cap can free a slot.
    const sim = await start(t, ['--port', '0', '--log-level', 'silent', '--max-connections', '40']);
    const pooled = new Agent({ keepAlive: true, maxSockets: 1 });
    t.teardown(() => pooled.destroy());
    t.equal(await honest(sim.url, pooled), 'R0', 'a pooled connection is open before the attack');

    // 60 connections for 40 slots: the attacker always has connections waiting to take a slot.
    const attack = idleHolder(sim.port, 60, trickleMs);
    t.teardown(attack.stop);
    await until(() => attack.replies >= 60, 30_000);
    t.ok(attack.replies >= 60, `the attacker's connections are answered and held (${attack.replies} replies)`);

    const before = attack.connections;
    const codes: string[] = [];
    const pooledCodes: string[] = [];
    for (let i = 0; i < 100; i++) {
      codes.push(await honest(sim.url));
      if (i % 20 === 0) pooledCodes.push(await honest(sim.url, pooled));
    }
    const during = attack.connections - before;
    attack.stop();
    const answered = codes.filter((c) => c === 'R0').length;
    const others = [...new Set(codes.filter((c) => c !== 'R0'))];
    t.comment(`${answered}/100 honest logins answered; the attacker opened ${during} connections meanwhile`);
    t.ok(during >= 60, `the attack went on throughout (${during} attacker connections during the logins)`);
    t.ok(
      answered >= 90,
      `${answered} of 100 honest logins on fresh connections answered R0 (at least 90%); others: ${others.join(', ') || 'none'}`,
    );
    // The pool opens a new connection when its idle one was closed: a callback on it is answered.
    t.ok(
      pooledCodes.filter((c) => c === 'R0').length >= pooledCodes.length - 1,
      `the pooled client's callbacks: ${pooledCodes.join(', ')}`,
    );
    t.equal(await honest(sim.url), 'R0', 'after the attack a fresh connection is served');
  });
}

t.test('at the cap, only idle connections make room; a connection awaiting its reply is never closed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-idle-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'scenario.json');
  writeFileSync(
    file,
    JSON.stringify({ ...TEST_SCENARIO, rules: [{ name: 'slow', when: { event_type: 'bet' }, then: { delay_ms: 3000 } }] }),
  );
  // In this process, so that the test reads the players without a connection (sim.players() is injected).
  const sim = await startSimulator({ maxConnections: 4, scenario: file });
  t.teardown(() => sim.close());
  const agents = Array.from({ length: 4 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  t.teardown(() => agents.forEach((a) => a.destroy()));
  // Four kept-alive connections, idle after their reply.
  t.same(await Promise.all(agents.map((a) => honest(sim.url, a))), ['R0', 'R0', 'R0', 'R0']);
  t.equal(await honest(sim.url), 'R0', 'a fifth connection is served: the connection idle the longest made room');
  // Four bets in their delay: every connection awaits its reply.
  const users = ['p0', 'p1', 'p2', 'p3'];
  const bets = agents.map((a, i) => honest(sim.url, a, bet(users[i]!, `G${i}`, [['1', 'P', 1]], { currency: 'USD' })));
  const debited = async () => (await sim.players()).filter((p) => users.includes(p.user_id) && p.balance === 999).length === 4;
  t.ok(await eventually(debited, 30_000), 'the four bets are applied and in their delay');
  t.not(await honest(sim.url), 'R0', 'with every connection awaiting its reply, a new connection is closed as it opens');
  t.same(await Promise.all(bets), ['R0', 'R0', 'R0', 'R0'], 'the delayed callbacks are answered');
});
