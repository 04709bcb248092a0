// docs/design.md "Bad input never hurts": R3 with HTTP 200, or a 4xx where the body cannot be read — never a 5xx,
// never a crash, never changed state. After each case the wallet still answers a valid login.
import t, { type Test } from 'tap';
import { bet, buildTestApp, CREDENTIALS, HEADERS, journal, login, now, send, snapshot, type TestApp } from './helpers/app.js';

const ts = now();
const envelope = (extra: Record<string, unknown> = {}) => ({
  transaction_id: 'bad-1',
  event_type: 'login',
  timestamp: ts,
  feedback_data: 'fb',
  user_id: 'player-1',
  ...extra,
});
const betData = (extra: Record<string, unknown> = {}) => ({
  currency: 'KRW',
  game_type: 'BAC',
  table_no: 'T1',
  game_no: 'G1',
  total_bet_amount: 100,
  bets: [{ bet_index: '1', bet_type: 'P', bet_amount: 100 }],
  ...extra,
});
const json = (v: unknown) => JSON.stringify(v);
/** betData's amounts (100) written as `text`: only those (the timestamp, now's, may hold "100" too). */
const amountsWritten = (body: string, text: string) => body.replace(/("(?:total_bet_amount|bet_amount)":)100(?=[,}])/g, `$1${text}`);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

interface Case {
  name: string;
  body: string | Buffer;
  headers?: Record<string, string>;
  /** R3 with HTTP 200 unless a status is given. */
  status?: number;
  /** The echo expected in the R3 reply ('' when unreadable). */
  echo?: { event_type: string; user_id: string };
  /** A finding code the journal must hold. */
  finding?: string;
}

const unreadable = { event_type: '', user_id: '' };
const asLogin = { event_type: 'login', user_id: 'player-1' };
const asBet = { event_type: 'bet', user_id: 'player-1' };

const cases: Case[] = [
  { name: 'malformed JSON', body: '{"transaction_id": "x", ', echo: unreadable, finding: 'BODY_NOT_JSON' },
  { name: 'JSON followed by junk', body: `${json(envelope())}x`, echo: unreadable, finding: 'BODY_NOT_JSON' },
  { name: 'single quotes', body: "{'event_type':'login'}", echo: unreadable, finding: 'BODY_NOT_JSON' },
  { name: 'NaN literal', body: json(envelope()).replace(`${ts}`, 'NaN'), echo: unreadable, finding: 'BODY_NOT_JSON' },
  { name: 'empty body', body: '', echo: unreadable, finding: 'BODY_EMPTY' },
  { name: 'whitespace body', body: '  \n ', echo: unreadable, finding: 'BODY_EMPTY' },
  {
    name: 'Content-Type text/plain',
    body: json(envelope()),
    headers: { ...HEADERS, 'content-type': 'text/plain' },
    echo: asLogin,
    finding: 'CONTENT_TYPE_WRONG',
  },
  {
    name: 'Content-Type form',
    body: json(envelope()),
    headers: { ...HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
    echo: asLogin,
    finding: 'CONTENT_TYPE_WRONG',
  },
  {
    name: 'Content-Type missing',
    body: json(envelope()),
    headers: { ...CREDENTIALS, 'callback-url': 'x' },
    echo: asLogin,
    finding: 'CONTENT_TYPE_WRONG',
  },
  { name: 'body over the 1 MiB limit', body: json(envelope({ feedback_data: 'x'.repeat(1024 * 1024) })), status: 413 },
  {
    name: 'amount as a string',
    body: json({ ...envelope({ event_type: 'bet' }), data: betData({ total_bet_amount: '100' }) }),
    echo: asBet,
    finding: 'SCHEMA',
  },
  {
    name: 'bet_amount as a string',
    body: json({ ...envelope({ event_type: 'bet' }), data: betData({ bets: [{ bet_index: '1', bet_type: 'P', bet_amount: '100' }] }) }),
    echo: asBet,
    finding: 'SCHEMA',
  },
  { name: 'timestamp as a string', body: json(envelope({ timestamp: String(ts) })), echo: asLogin, finding: 'SCHEMA' },
  { name: 'user_id as a number', body: json(envelope({ user_id: 42 })), echo: { event_type: 'login', user_id: '' }, finding: 'SCHEMA' },
  { name: 'user_id empty', body: json(envelope({ user_id: '' })), echo: { event_type: 'login', user_id: '' }, finding: 'SCHEMA' },
  { name: 'transaction_id missing', body: json({ ...envelope(), transaction_id: undefined }), echo: asLogin, finding: 'SCHEMA' },
  {
    name: 'unknown event_type',
    body: json(envelope({ event_type: 'logout' })),
    echo: { event_type: 'logout', user_id: 'player-1' },
    finding: 'SCHEMA',
  },
  {
    name: 'event_type missing',
    body: json({ ...envelope(), event_type: undefined }),
    echo: { event_type: '', user_id: 'player-1' },
    finding: 'SCHEMA',
  },
  {
    name: 'event_type as an object',
    body: json(envelope({ event_type: { login: true } })),
    echo: { event_type: '', user_id: 'player-1' },
    finding: 'SCHEMA',
  },
  { name: 'bet without data', body: json(envelope({ event_type: 'bet' })), echo: asBet, finding: 'SCHEMA' },
  {
    name: 'bet with data as an array',
    body: json({ ...envelope({ event_type: 'bet' }), data: [betData()] }),
    echo: asBet,
    finding: 'SCHEMA',
  },
  {
    name: 'bets not an array',
    body: json({ ...envelope({ event_type: 'bet' }), data: betData({ bets: { bet_index: '1', bet_type: 'P', bet_amount: 100 } }) }),
    echo: asBet,
    finding: 'SCHEMA',
  },
  {
    name: '__proto__ key at the top',
    body: `{"__proto__":{"balance":1},${json(envelope()).slice(1)}`,
    echo: asLogin, // (the spec's echo still holds: JSON.parse makes the key an own property, nothing more)
    finding: 'BODY_FORBIDDEN_KEY',
  },
  {
    name: '__proto__ key inside data',
    body: json({ ...envelope({ event_type: 'bet' }), data: betData() }).replace('"currency"', '"__proto__":{"isAdmin":true},"currency"'),
    echo: asBet,
    finding: 'BODY_FORBIDDEN_KEY',
  },
  {
    name: 'constructor.prototype key',
    body: `{"constructor":{"prototype":{"balance":1}},${json(envelope()).slice(1)}`,
    echo: asLogin,
    finding: 'BODY_FORBIDDEN_KEY',
  },
  { name: 'array body', body: json([envelope()]), echo: unreadable, finding: 'SCHEMA' },
  { name: 'null body', body: 'null', echo: unreadable, finding: 'SCHEMA' },
  { name: 'number body', body: '42', echo: unreadable, finding: 'SCHEMA' },
  { name: 'string body', body: '"login"', echo: unreadable, finding: 'SCHEMA' },
  { name: 'deeply nested array (200,000 levels)', body: deepArray(200_000), echo: unreadable, finding: 'SCHEMA' },
  {
    name: 'deeply nested junk inside a valid login',
    body: `${json(envelope()).slice(0, -1)},"junk":${deepObject(100_000)}}`,
    echo: asLogin,
    finding: 'SCHEMA',
  },
  {
    name: 'deeply nested junk inside a valid bet',
    body: `${json({ ...envelope({ event_type: 'bet' }), data: betData() }).slice(0, -1)},"junk":${deepArray(50_000)}}`,
    echo: asBet,
    finding: 'SCHEMA',
  },
  { name: 'timestamp 1e400', body: json(envelope()).replace(`${ts}`, '1e400'), echo: asLogin, finding: 'SCHEMA' },
  { name: 'timestamp -1e400', body: json(envelope()).replace(`${ts}`, '-1e400'), echo: asLogin, finding: 'SCHEMA' },
  {
    name: 'bet amounts 1e400',
    body: amountsWritten(json({ ...envelope({ event_type: 'bet' }), data: betData() }), '1e400'),
    echo: asBet,
    finding: 'AMOUNT_NOT_FINITE',
  },
  {
    name: 'bet amounts 1e-400 (parses to 0)',
    body: amountsWritten(json({ ...envelope({ event_type: 'bet' }), data: betData() }), '1e-400'),
    echo: asBet,
    finding: 'SCHEMA',
  },
  {
    name: 'invalid UTF-8 bytes',
    body: Buffer.concat([Buffer.from('{"event_type":"login","user_id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"')]),
    echo: unreadable,
    finding: 'BODY_NOT_JSON',
  },
];

/** The state before a case, and the proof that the wallet still works after it. */
async function assertUnharmed(tt: Test, { app, sim }: TestApp, before: string) {
  tt.equal(snapshot(sim), before, 'no state changed');
  const balance = Number(sim.player('player-1')!.balance.toFixed());
  const ok = await send(app, login('player-1'));
  tt.equal(ok.status, 200, 'still answers');
  tt.equal(ok.body.code, 'R0', 'a valid login still gets R0');
  tt.equal(ok.body.latest_balance, balance);
}

t.test('bad input: R3 (HTTP 200) or 4xx, never 5xx, nothing changed', async (t) => {
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const built = await buildTestApp();
      t.teardown(() => built.app.close());
      const { app } = built;
      // an open round, so a bad body has something it could corrupt
      t.equal((await send(app, bet('player-1', 'G1', [['1', 'P', 100]]))).body.code, 'R0');
      await app.inject({ method: 'DELETE', url: '/admin/journal' });
      const before = snapshot(built.sim);

      const res = await app.inject({ method: 'POST', url: '/callback', headers: c.headers ?? HEADERS, payload: c.body });
      t.ok(res.statusCode < 500, `not a 5xx (got ${res.statusCode})`);
      if (c.status) {
        t.equal(res.statusCode, c.status, `HTTP ${c.status}`);
        t.equal(res.json().error, 'BODY_TOO_LARGE');
      } else {
        t.equal(res.statusCode, 200, 'HTTP 200, as the spec wants for every reply');
        const body = res.json();
        t.equal(body.code, 'R3');
        t.same({ event_type: body.event_type, user_id: body.user_id }, c.echo, 'echoes event_type and user_id when readable');
        t.match(res.headers['x-wallet-sim-reason'], /^R3: /, 'the reason header');
      }
      const entries = await journal(app);
      t.equal(entries.length, 1, 'journalled');
      t.ok(entries[0].reason, 'the journal says why');
      if (c.finding)
        t.ok(
          entries[0].findings.some((f: { code: string }) => f.code === c.finding),
          `${c.finding} recorded`,
        );
      await assertUnharmed(t, built, before);
    });
  }
});

t.test('positive controls: not bad input', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const res = await send(app, login('player-1'), { ...HEADERS, 'content-type': 'Application/JSON; charset=utf-8' });
  t.equal(res.body.code, 'R0', 'a Content-Type with parameters and any case');
  t.equal(res.body.latest_balance, 1000000);
  // RFC 8259 section 8.1: a parser MAY ignore a byte order mark.
  const bom = await send(app, `\uFEFF${json(envelope({ transaction_id: 'bom-1' }))}`);
  t.equal(bom.body.code, 'R0', 'a leading byte order mark is ignored');
  const extra = await send(app, { ...login('player-1'), vendor_field: { any: ['thing'] } });
  t.equal(extra.body.code, 'R0', 'unknown extra fields are tolerated');
});

t.test('a custom body limit: 413 just over it, R0 at it', async (t) => {
  const req = json(envelope({ transaction_id: 'limit-1' }));
  const built = await buildTestApp({}, { bodyLimit: req.length });
  t.teardown(() => built.app.close());
  const before = snapshot(built.sim);
  const over = await built.app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: `${req} ` });
  t.equal(over.statusCode, 413);
  t.equal(snapshot(built.sim), before);
  const at = await built.app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: req });
  t.equal(at.statusCode, 200);
  t.equal(at.json().code, 'R0');
});

t.test('other methods on the callback path are 4xx', async (t) => {
  const built = await buildTestApp();
  t.teardown(() => built.app.close());
  const before = snapshot(built.sim);
  for (const method of ['GET', 'PUT', 'DELETE'] as const) {
    const res = await built.app.inject({
      method,
      url: '/callback',
      headers: HEADERS,
      payload: method === 'GET' || method === 'DELETE' ? undefined : json(envelope()),
    });
    t.ok(res.statusCode >= 400 && res.statusCode < 500, `${method}: 4xx (got ${res.statusCode})`);
  }
  await assertUnharmed(t, built, before);
});

t.test('the journal of bad input stays readable', async (t) => {
  const built = await buildTestApp();
  t.teardown(() => built.app.close());
  for (const c of cases) await built.app.inject({ method: 'POST', url: '/callback', headers: c.headers ?? HEADERS, payload: c.body });
  const res = await built.app.inject({ method: 'GET', url: '/admin/journal' });
  t.equal(res.statusCode, 200, 'GET /admin/journal still works');
  t.equal(res.json().count, cases.length, 'every bad callback is there');
});
