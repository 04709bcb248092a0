// Slow-body denial of service (issue 15, item 2): the built CLI with small time-outs and a small
// connection cap, attacked over real sockets while an honest provider keeps calling back.
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { HEADERS, login } from './helpers/app.js';
import { start } from './helpers/spawn-cli.js';

t.setTimeout(120_000);

interface Attacker {
  socket: Socket;
  received: string;
  closedAt?: number;
  error?: string;
}

/**
 * Opens a connection that trickles a request in, one byte every `everyMs`: its headers
 * (`part: 'headers'`) or, after complete headers, its body. It never ends the request itself.
 */
function attacker(port: number, part: 'headers' | 'body', everyMs: number): Attacker {
  const body = JSON.stringify(login('slow'));
  const head = `POST /callback HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nApi-Id: sandbox\r\nApi-Key: sandbox-key\r\nContent-Length: ${body.length * 100}\r\n\r\n`;
  const a: Attacker = { socket: connect(port, '127.0.0.1'), received: '' };
  let pending = part === 'headers' ? head : body.repeat(100);
  a.socket.on('connect', () => {
    if (part === 'body') a.socket.write(head);
    const timer = setInterval(() => {
      if (a.socket.destroyed || !pending) return;
      a.socket.write(pending[0]!);
      pending = pending.slice(1);
    }, everyMs);
    a.socket.on('close', () => clearInterval(timer));
  });
  a.socket.setEncoding('utf8').on('data', (c: string) => {
    a.received += c;
  });
  a.socket.on('error', (e: NodeJS.ErrnoException) => {
    a.error = e.code ?? e.message;
  });
  a.socket.on('close', () => {
    a.closedAt = Date.now();
  });
  return a;
}

/** One callback over the given agent; resolves with its reply code or the error. */
function callback(url: string, agent: Agent | false): Promise<string> {
  const data = JSON.stringify(login('player-1'));
  return new Promise((resolve) => {
    const req = request(
      `${url}/callback`,
      { method: 'POST', agent, headers: { ...HEADERS, 'content-length': String(Buffer.byteLength(data)) } },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => {
            text += c;
          })
          .on('end', () => {
            try {
              resolve((JSON.parse(text) as { code: string }).code);
            } catch {
              resolve(`HTTP ${res.statusCode} ${text}`);
            }
          });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(data);
  });
}

t.test('200 slow connections are cut by the time-outs and the cap while honest callbacks keep succeeding', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'silent', '--max-connections', '120'], {
    WALLET_SIM_HEADERS_TIMEOUT_MS: '500',
    WALLET_SIM_REQUEST_TIMEOUT_MS: '1000',
  });
  // The provider's client pools its connection (keep-alive), as HTTP clients do.
  const pooled = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => pooled.destroy());
  // A provider's pooled connection carries many callbacks: two before the attack (the cap closes a
  // connection that carried one request and then went quiet, an idle holder's pattern, before it).
  t.equal(await callback(sim.url, pooled), 'R0', 'the pooled connection is open before the attack');
  t.equal(await callback(sim.url, pooled), 'R0', 'and has carried a callback before');

  const started = Date.now();
  const deadline = 10_000; // ten times the request time-out: a connection still open then was not cut
  const attackers = Array.from({ length: 200 }, (_, i) => attacker(sim.port, i % 4 === 0 ? 'headers' : 'body', 300));

  const honest: string[] = [];
  while (attackers.some((a) => a.closedAt === undefined) && Date.now() - started < deadline) {
    honest.push(await callback(sim.url, pooled));
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const a of attackers) a.socket.destroy();

  const open = attackers.filter((a) => a.closedAt === undefined || a.closedAt - started >= deadline);
  t.equal(open.length, 0, 'every slow connection was closed by the server');
  const timedOut = attackers.filter((a) => a.received.startsWith('HTTP/1.1 408'));
  const refused = attackers.filter((a) => a.received === '');
  t.ok(timedOut.length > 0, `slow requests answered 408 and closed (${timedOut.length})`);
  t.ok(
    timedOut.some((a) => attackers.indexOf(a) % 4 === 0),
    'slow headers too',
  );
  t.ok(refused.length > 0, `connections beyond --max-connections closed at once (${refused.length})`);
  t.equal(timedOut.length + refused.length, attackers.length, 'nothing else happened to them');
  t.ok(honest.length >= 3, `honest callbacks were sent during the attack (${honest.length})`);
  t.same([...new Set(honest)], ['R0'], 'and every one was answered R0');
  t.equal(await callback(sim.url, false), 'R0', 'after the attack a fresh connection is served again');
});

t.test('a bad combination of time-outs is refused before start with what to change', async (t) => {
  const { run } = await import('./helpers/spawn-cli.js');
  const ran = await run(['start', '--port', '0', '--headers-timeout-ms', '5000', '--request-timeout-ms', '1000']);
  t.equal(ran.code, 1);
  t.match(ran.stderr, '--headers-timeout-ms (5000) must not exceed --request-timeout-ms (1000); lower the first or raise the second');
});
