// A slow-body caller that reconnects as soon as it is cut, from the same address as the honest
// client (issue 21, item 3): at the connection cap the server closes the connection stalled the
// longest rather than the newcomer, so honest callbacks keep being answered. Real sockets, the
// built CLI, small limits.
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { HEADERS, login } from './helpers/app.js';
import { start } from './helpers/spawn-cli.js';

t.setTimeout(180_000);

/** One login over `agent` (false: a fresh connection); resolves with its reply code or the error. */
function honest(url: string, agent: Agent | false = false): Promise<string> {
  const data = JSON.stringify(login('player-1'));
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
  stop: () => void;
}

/**
 * `count` connections that each send complete headers, then a body one byte every `everyMs`
 * (never all of it), or with `everyMs` 0 send nothing at all; each one cut is opened again at once.
 */
function reconnectingAttacker(port: number, count: number, everyMs: number): Attack {
  const sockets = new Set<Socket>();
  let stopped = false;
  const head = `POST /callback HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nApi-Id: sandbox\r\nApi-Key: sandbox-key\r\nContent-Length: 100000\r\n\r\n`;
  const attack: Attack = {
    connections: 0,
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
    socket.on('connect', () => {
      if (!everyMs) return;
      socket.write(head);
      timer = setInterval(() => socket.writable && socket.write('{'), everyMs);
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

t.test('a reconnecting slow-body attacker: at least 90% of honest logins are answered', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'silent', '--max-connections', '40'], {
    WALLET_SIM_HEADERS_TIMEOUT_MS: '500',
    WALLET_SIM_REQUEST_TIMEOUT_MS: '1000',
  });
  // A provider whose client pools its connection (kept alive, idle between callbacks).
  const pooled = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => pooled.destroy());
  t.equal(await honest(sim.url, pooled), 'R0', 'the pooled connection is open before the attack');

  // 60 connections for 40 slots: the attacker always has connections waiting to take a slot.
  const attack = reconnectingAttacker(sim.port, 60, 200);
  t.teardown(attack.stop);
  // The attacker holds the slots and reconnects once cut (by the time-outs at least).
  await until(() => attack.connections >= 120, 20_000);
  t.ok(attack.connections >= 120, `the attacker reconnects (${attack.connections} connections so far)`);

  const before = attack.connections;
  const codes: string[] = [];
  const pooledCodes: string[] = [];
  for (let i = 0; i < 200; i++) {
    codes.push(await honest(sim.url));
    if (i % 20 === 0) pooledCodes.push(await honest(sim.url, pooled));
  }
  const during = attack.connections - before;
  attack.stop();
  const answered = codes.filter((c) => c === 'R0').length;
  const others = [...new Set(codes.filter((c) => c !== 'R0'))];
  t.comment(`${answered}/200 honest logins answered; the attacker opened ${during} connections meanwhile`);
  t.ok(during >= 60, `the attack went on throughout (${during} attacker connections during the logins)`);
  t.ok(
    answered >= 180,
    `${answered} of 200 honest logins on fresh connections answered R0 (at least 90%); others: ${others.join(', ') || 'none'}`,
  );
  t.same(
    [...new Set(pooledCodes)],
    ['R0'],
    'every callback on the pooled connection was answered: a stalled connection is closed before an idle one',
  );
  t.equal(await honest(sim.url), 'R0', 'after the attack a fresh connection is served');
});

t.test('a reconnecting caller that sends nothing does not keep newcomers out either', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'silent', '--max-connections', '40'], {
    WALLET_SIM_HEADERS_TIMEOUT_MS: '500',
    WALLET_SIM_REQUEST_TIMEOUT_MS: '1000',
  });
  const attack = reconnectingAttacker(sim.port, 60, 0);
  t.teardown(attack.stop);
  await until(() => attack.connections >= 120, 20_000);
  const codes: string[] = [];
  for (let i = 0; i < 100; i++) codes.push(await honest(sim.url));
  attack.stop();
  const answered = codes.filter((c) => c === 'R0').length;
  t.ok(answered >= 90, `${answered} of 100 honest logins answered R0 (at least 90%)`);
});

// At the cap with nothing stalled, the connection idle the longest makes room (issue 35, item 7):
// test/idle-holders.test.ts.
