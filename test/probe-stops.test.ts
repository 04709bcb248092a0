import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { runProbe } from '../src/probe/battery.js';
import { inServiceWords } from '../src/probe/stops.js';
import { formatProbeHtml } from '../src/probe/format-html.js';
import { formatProbeReport, probeExitCode, probeJUnit, walletFails } from '../src/probe/report.js';
import type { ProbeTarget } from '../src/probe/types.js';
import { buildTestApp } from './helpers/app.js';
import { startZooWallet } from './wallets/zoo-wallet.js';

/**
 * What the probe decides on its first exchanges: a target that does not answer like a wallet, and
 * a player whose currency is not --currency, stop it with exit 2 and one line (never a list of
 * failures); a wallet that answers protocol replies, even wrong ones, is graded instead.
 */

const ZOO = { apiId: 'zoo', apiKey: 'zoo-key', user: 'player-1', currency: 'USD', scale: 2, backoffMs: 50 };

/** A real HTTP server on 127.0.0.1, port 0, answering every request with `answer`. */
async function serve(answer: (req: IncomingMessage, body: string, res: ServerResponse) => void | Promise<void>): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
}

const reply = (res: ServerResponse, status: number, type: string, text: string) => {
  res.writeHead(status, { 'content-type': type });
  res.end(text);
};

/** A wallet that knows one player (balance 100) and refuses every bet with R3, saying nothing or telling its currency at login. */
const refusesBets = (loginExtra: object) =>
  serve((req, text, res) => {
    const body = JSON.parse(text) as { event_type: string; user_id: string };
    const base = { event_type: body.event_type, user_id: body.user_id, timestamp: Math.floor(Date.now() / 1000) };
    const out = body.event_type === 'login' ? { code: 'R0', ...base, latest_balance: 100, ...loginExtra } : { code: 'R3', ...base };
    res.writeHead(200, { 'content-type': 'application/json', 'api-id': 'zoo', 'api-key': String(req.headers['api-key']) });
    res.end(JSON.stringify(out));
  });

async function zooUrl(): Promise<string> {
  const zoo = await startZooWallet();
  t.teardown(() => zoo.close());
  return zoo.url;
}

async function sandbox(): Promise<string> {
  const { app } = await buildTestApp({});
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/callback`;
}

const HTML = '<!doctype html>\n<html><head><title>Acme Casino | Home</title></head><body><h1>Welcome</h1></body></html>';

t.test('a target that does not answer like a wallet stops the probe at its first exchange, exit 2, saying what it answered', async (t) => {
  const cases: [string, () => Promise<string>, RegExp][] = [
    [
      'an HTML page',
      () => serve((_req, _body, res) => reply(res, 200, 'text/html; charset=utf-8', HTML)),
      /does not answer like a wallet: a login got HTTP 200 text\/html with an HTML page \("Acme Casino \| Home"\), not a JSON reply with a code \(R0–R4\); check --url/,
    ],
    [
      'JSON that is no protocol reply',
      () => serve((_req, _body, res) => reply(res, 200, 'application/json', '{"status":"ok"}')),
      /does not answer like a wallet: a login got HTTP 200 application\/json with the JSON \{"status":"ok"\}, not a JSON reply with a code/,
    ],
    [
      'an error page from a proxy',
      () => serve((_req, _body, res) => reply(res, 502, 'text/html', '<html><head><title>502 Bad Gateway</title></head></html>')),
      /a login got HTTP 502 text\/html with an HTML page \("502 Bad Gateway"\).*check --url/,
    ],
  ];
  for (const [name, start, message] of cases) {
    const report = await runProbe({ ...ZOO, url: await start() });
    t.equal(report.stopped?.reason, 'not-a-wallet', name);
    t.match(report.stopped?.message, message, name);
    t.equal(probeExitCode(report), 2, `${name}: exit 2`);
    t.equal(report.exchanges.length, 1, `${name}: one exchange, not a battery`);
    t.ok(formatProbeReport(report).split('\n').length <= 6, `${name}: a few lines`);
  }
});

t.test('https:// to a plain-HTTP wallet stops the probe saying so, never an OpenSSL string or "a longer --timeout"', async (t) => {
  const url = (await sandbox()).replace(/^http:/, 'https:');
  const report = await runProbe({ ...ZOO, apiId: 'sandbox', apiKey: 'sandbox-key', user: 'player-usd', url });
  t.equal(report.stopped?.reason, 'unreachable');
  t.match(
    report.stopped?.message,
    /^cannot call https:\/\/127\.0\.0\.1:\d+\/callback: TLS refused: 127\.0\.0\.1:\d+ does not speak TLS \(a plain-HTTP server\?\): http or https\? try http:\/\/$/,
  );
  t.notMatch(report.stopped?.message, /ssl3|SSL routines|--timeout/);
  t.equal(probeExitCode(report), 2);
});

t.test('a wallet that answers protocol replies, even wrong ones, is graded, not stopped', async (t) => {
  const lower = await startZooWallet({ defect: 'lowercase-code' });
  t.teardown(() => lower.close());
  const upstream = await zooUrl();
  // The zoo behind a relay that answers the first login HTTP 500, its JSON (with its code) unchanged.
  let first = true;
  const relayed = await serve(async (req, body, res) => {
    const r = await fetch(upstream, { method: 'POST', headers: req.headers as Record<string, string>, body });
    const text = await r.text();
    const login = body.includes('"event_type":"login"'); // the malformed-body check's body is no JSON
    reply(res, login && first ? 500 : r.status, r.headers.get('content-type') ?? '', text);
    if (login) first = false;
  });
  for (const [name, url] of [
    ['codes in lower case ("r0")', lower.url],
    ['HTTP 500 with a code in its JSON', relayed],
  ] as const) {
    const report = await runProbe({ ...ZOO, url });
    t.equal(report.stopped, undefined, `${name}: not stopped`);
    t.same(
      report.walletChecks.filter(walletFails).map((c) => c.id),
      ['WALLET_REPLY_VALID'],
      `${name}: graded, WALLET_REPLY_VALID fails`,
    );
    t.equal(probeExitCode(report), 1, `${name}: exit 1`);
  }
});

t.test('a player whose currency is not --currency stops the probe at its first bet, exit 2, naming both', async (t) => {
  const cases: [string, () => Promise<string>, Partial<ProbeTarget>, RegExp][] = [
    [
      "the zoo (its reason names the player's currency)",
      zooUrl,
      { currency: 'EUR' },
      /refused the first bet \(R3\), a valid bet of 0\.3 EUR \(the wallet said: currency EUR is not the player's USD\): --currency EUR is not player-1's currency, the wallet's is USD; probe again with --currency USD/,
    ],
    [
      'wallet-sim itself',
      sandbox,
      { apiId: 'sandbox', apiKey: 'sandbox-key', user: 'player-usd', currency: 'EUR' },
      /refused the first bet \(R3\).*--currency EUR is not player-usd's currency, the wallet's is USD; probe again with --currency USD/,
    ],
    [
      'wallet-sim itself, the currency in lower case',
      sandbox,
      { apiId: 'sandbox', apiKey: 'sandbox-key', user: 'player-usd', currency: 'usd' },
      /--currency usd is not player-usd's currency, the wallet's is USD; probe again with --currency USD/,
    ],
    [
      'a wallet whose login tells the currency',
      () => refusesBets({ currency: 'GBP' }),
      {},
      /refused the first bet \(R3\), a valid bet of 0\.3 USD: --currency USD is not player-1's currency, the wallet's is GBP; probe again with --currency GBP/,
    ],
  ];
  for (const [name, start, target, message] of cases) {
    const report = await runProbe({ ...ZOO, url: await start(), ...target });
    t.equal(report.stopped?.reason, 'currency', name);
    t.match(report.stopped?.message, message, name);
    t.equal(probeExitCode(report), 2, `${name}: exit 2`);
    t.same(
      report.checks.map((c) => c.name),
      ['login', 'bet'],
      `${name}: stopped at the first bet`,
    );
    t.same(
      report.checks.filter((c) => c.status === 'fail').flatMap((c) => c.assertions.map((a) => a.name)),
      ['stopped'],
      `${name}: one line, no list of failures`,
    );
    t.ok(report.exchanges.length <= 3, `${name}: ${report.exchanges.length} exchanges`);
  }
});

t.test('a first bet refused without a word stops the probe too, asking about --currency without naming a currency', async (t) => {
  const report = await runProbe({ ...ZOO, url: await refusesBets({}) });
  t.equal(report.stopped?.reason, 'bet-refused');
  t.match(
    report.stopped?.message,
    /refused the first bet \(R3\), a valid bet of 0\.3 USD, and no check can run without bets: is --currency USD player-1's currency/,
  );
  t.equal(probeExitCode(report), 2);
  // The reports a CI keeps: the check it stopped at is an error in JUnit (nothing judged), with no fix for the wallet.
  const xml = probeJUnit(report);
  t.match(xml, /<testsuites [^>]*failures="0" errors="1"/);
  t.match(
    xml,
    /<testcase classname="wallet-sim.probe" name="bet"[^>]*>\s*<error message="[^"]*is --currency USD player-1&apos;s currency[^"]*" type="NotChecked">/,
  );
  t.notMatch(xml, /<failure|fix:/);
  t.notMatch(formatProbeHtml(report), /Fix:/);
});

t.test("the probe service's stop lines name the run's fields, not the CLI's options", async (t) => {
  const table: [string, string][] = [
    ['credentials refused (R2): check --api-id/--api-key', 'credentials refused (R2): check api_id/api_key'],
    ['is --user a player of this wallet (and --currency its currency)?', 'is user a player of this wallet (and currency its currency)?'],
    ['check --url (the callback URL)', 'check url (the callback URL)'],
    ['A slow wallet needs a longer --timeout', "A slow wallet needs a longer time-out (the CLI's wallet-sim probe --timeout)"],
    ['--api-key alone', 'api_key alone'],
  ];
  for (const [cli, service] of table) t.equal(inServiceWords(cli), service, cli);
});

t.test('a wallet that goes away mid-run: WALLET_ANSWERS_IN_TIME says it was not reached, with the fix for that, not "slow"', async (t) => {
  const upstream = await zooUrl();
  // The zoo behind a relay that stops listening after its first dozen requests (the wallet went down).
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void relay());
    const relay = async () => {
      const r = await fetch(upstream, { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
      res.writeHead(r.status, {
        'content-type': r.headers.get('content-type') ?? '',
        'api-id': r.headers.get('api-id') ?? '',
        'api-key': r.headers.get('api-key') ?? '',
      });
      res.end(await r.text());
      if (++n === 12) {
        server.close();
        server.closeAllConnections();
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const report = await runProbe({ ...ZOO, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback` });
  t.equal(report.stopped, undefined, 'graded: the wallet answered its first callbacks');
  const inTime = report.walletChecks.find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')!;
  t.equal(inTime.status, 'fail');
  t.ok(
    inTime.violations.some((v) => /not reached: .*ECONNREFUSED/.test(v.message)),
    'a violation says it was not reached (one in flight as it went may say the connection closed)',
  );
  t.match(inTime.fix, /could not reach the wallet \(nothing says it is slow\)/, 'the fix for a wallet not reached');
  t.match(inTime.fix, /probe's --url/, "naming the probe's option");
});
