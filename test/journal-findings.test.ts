import t from 'tap';
import { Journal } from '../src/journal/journal.js';
import { bet, buildTestApp, HEADERS, login, now, result, send } from './helpers/app.js';

const codes = (findings: { code: string; severity: string }[]) => findings.map((f) => `${f.severity}:${f.code}`).sort();

t.test('a request with several defects lists every one of them', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const b = bet(
    'usd',
    'G1',
    [
      ['1', 'P', 10.005],
      ['1', 'B', 5],
    ],
    { currency: 'KRW', total: 20 },
  );
  const { 'callback-url': _cb, ...noCallbackUrl } = HEADERS;
  const r = await send(app, { ...b, timestamp: Date.now() }, noCallbackUrl);
  t.equal(r.body.code, 'R3');
  const res = await app.inject({ url: '/admin/journal?limit=1' });
  const [entry] = res.json().entries;
  t.same(
    codes(entry.findings),
    [
      'error:AMOUNT_SCALE', // 10.005 in KRW (scale 0)
      'error:BET_INDEX_REPEATED',
      'error:CURRENCY_MISMATCH', // usd is a USD player
      'error:TOTAL_MISMATCH', // 20 != 15.005
      'warning:CALLBACK_URL_MISSING',
      'warning:TIMESTAMP_SKEWED', // milliseconds
    ].sort(),
  );
  t.match(entry.findings.find((f: { code: string }) => f.code === 'TIMESTAMP_SKEWED').message, /milliseconds instead of seconds/);
  t.match(
    entry.findings.find((f: { code: string }) => f.code === 'AMOUNT_SCALE'),
    { pointer: '/data/bets/0/bet_amount', message: '10.005 has 3 fraction digits; KRW allows 0' },
  );
  t.match(entry, {
    code: 'R3',
    event_type: 'bet',
    user_id: 'usd',
    transaction_id: b.transaction_id,
    balance_before: 100,
    balance_after: 100,
    replayed: false,
  });
  t.match(entry.reason, /^R3: /);
  t.equal(entry.request.headers['api-key'], 'sa*********', 'Api-Key masked');
  t.equal(entry.reply.headers['api-key'], 'sa*********', 'the echoed key is masked in the reply headers too');
});

t.test('settlement defects: unknown round, bad result_detail, bad cards, non-integer timestamp', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  await send(app, bet('player-1', 'G1', [['1', 'P', 100]]));
  const detail = JSON.stringify({ pscore: 'eight', pcards: ['H8', 'X2', 'S14'], bcards: [] });
  const ok = await send(app, { ...result('player-1', 'G1', [['1', 'P', 100, 100]], { detail }), timestamp: now() + 0.5 }); // (never a whole second)
  t.equal(ok.body.code, 'R0', 'incomplete baccarat keys are findings, not R3');
  t.same(codes(sim.journal.list().at(-1)!.findings), [
    'warning:CARD_MALFORMED',
    'warning:CARD_MALFORMED',
    'warning:RESULT_DETAIL_INCOMPLETE',
    'warning:RESULT_DETAIL_INCOMPLETE',
    'warning:TIMESTAMP_NOT_INTEGER',
  ]);
  const bad = await send(app, result('player-1', 'G7', [['1', 'P', 100, 100]], { detail: '[1,2]' }));
  t.equal(bad.body.code, 'R3');
  t.same(codes(sim.journal.list().at(-1)!.findings), ['error:RESULT_DETAIL_NOT_JSON', 'error:ROUND_UNKNOWN']);
});

t.test('reuse of a transaction_id is a finding', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const l = login('player-1');
  await send(app, l);
  await send(app, { ...l, user_id: 'usd' });
  t.match(sim.journal.list().at(-1), {
    code: 'R3',
    findings: [{ code: 'TRANSACTION_REUSED', severity: 'error', pointer: '/transaction_id' }],
  });
});

t.test('the journal is a bounded ring buffer, oldest first, with filters', async (t) => {
  const j = new Journal(3);
  const entry = (user_id: string, event_type = 'bet') => ({
    received_at: '',
    duration_ms: 0,
    user_id,
    event_type,
    transaction_id: `t-${user_id}`,
    request: { method: 'POST', url: '/', headers: {}, body: null },
    reply: { status: 200, headers: {}, body: null, dropped: false },
    replayed: false,
    findings: [],
  });
  for (const u of ['a', 'b', 'c', 'd', 'e']) j.record(entry(u, u === 'd' ? 'login' : 'bet'));
  t.same(
    j.list().map((e) => [e.id, e.user_id]),
    [
      [3, 'c'],
      [4, 'd'],
      [5, 'e'],
    ],
    'the two oldest dropped',
  );
  t.same(
    j.list({ event_type: 'bet' }).map((e) => e.user_id),
    ['c', 'e'],
  );
  t.same(
    j.list({ limit: 1 }).map((e) => e.user_id),
    ['e'],
    'limit keeps the newest',
  );
  t.same(
    j.list({ transaction_id: 't-d' }).map((e) => e.user_id),
    ['d'],
  );
  t.equal(j.count({ user_id: 'zzz' }), 0);
  j.reset();
  t.same(j.list(), []);
  t.equal(j.record(entry('f')).id, 6, 'ids keep increasing after a reset');
});

t.test('--journal-size bounds the journal of a running app', async (t) => {
  const { app, sim } = await buildTestApp({}, { journalSize: 2 });
  t.teardown(() => app.close());
  for (let i = 0; i < 5; i++) await send(app, login('usd'));
  t.equal(sim.journal.count(), 2);
});

t.test('schema findings name the field once, in words a provider understands', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const cases: [string, string[]][] = [
    ['{}', ['/event_type is required']],
    ['{"event_type":"deposit","user_id":"u"}', ['/event_type must be one of login, bet, bet_result']],
    ['{"event_type":5}', ['/event_type must be one of login, bet, bet_result']],
    ['null', ['/ must be object']],
    ['{"event_type":"login","user_id":"u","transaction_id":"t","feedback_data":"","timestamp":"1"}', ['/timestamp must be number']],
  ];
  for (const [body, messages] of cases) {
    t.equal((await send(app, body)).body.code, 'R3', body);
    t.same(
      sim.journal
        .list()
        .at(-1)!
        .findings.filter((f) => f.code === 'SCHEMA')
        .map((f) => f.message),
      messages,
      body,
    );
  }
});
