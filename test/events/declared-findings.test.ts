// Each event module lists the findings its checks raise (EventHandler.findings): a table of
// refused callbacks through the real app, each raising the finding named, and every finding the
// journal shows for them in its event's list.
import t from 'tap';
import { eventNamed } from '../../src/protocol/seed/index.js';
import { bet, buildTestApp, result, send } from '../helpers/app.js';

type Request = { transaction_id: string; event_type: string };
let game = 0;

/** The finding the last request must raise, after the requests that set its round up. */
const CASES: [string, (g: string) => Request[]][] = [
  [
    'ROUND_SETTLED',
    (g) => [bet('player-1', g, [['1', 'P', 10]]), result('player-1', g, [['1', 'P', 10, 0]]), bet('player-1', g, [['2', 'P', 10]])],
  ],
  ['TOTAL_MISMATCH', (g) => [bet('player-1', g, [['1', 'P', 10]], { total: 20 })]],
  [
    'BET_INDEX_REPEATED',
    (g) => [
      bet('player-1', g, [
        ['1', 'P', 10],
        ['1', 'B', 10],
      ]),
    ],
  ],
  ['CURRENCY_MISMATCH', (g) => [bet('player-1', g, [['1', 'P', 10]], { currency: 'USD' })]],
  ['AMOUNT_SCALE', (g) => [bet('usd', g, [['1', 'P', 1.234]], { currency: 'USD' })]],
  ['ROUND_UNKNOWN', (g) => [result('player-1', g, [['1', 'P', 10, 0]])]],
  ['STAKE_MISMATCH', (g) => [bet('player-1', g, [['1', 'P', 10]]), result('player-1', g, [['1', 'P', 10, 0]], { total: 20 })]],
  ['BET_INDEX_UNKNOWN', (g) => [bet('player-1', g, [['1', 'P', 10]]), result('player-1', g, [['2', 'P', 10, 0]])]],
  ['BET_MISMATCH', (g) => [bet('player-1', g, [['1', 'P', 10]]), result('player-1', g, [['1', 'B', 10, 0]])]],
  ['WINLOSS_BELOW_STAKE', (g) => [bet('player-1', g, [['1', 'P', 10]]), result('player-1', g, [['1', 'P', 10, -20]])]],
  ['RESULT_DETAIL_NOT_JSON', (g) => [bet('player-1', g, [['1', 'P', 10]]), result('player-1', g, [['1', 'P', 10, 0]], { detail: 'nope' })]],
];

t.test("the findings an event's checks raise are the ones its module declares", async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  for (const [expected, requests] of CASES) {
    const sent = requests(`G-${++game}`);
    for (const r of sent) await send(app, r);
    const last = sent.at(-1)!;
    const url = `/admin/journal?transaction_id=${encodeURIComponent(last.transaction_id)}`;
    const [entry] = (await app.inject({ method: 'GET', url })).json().entries as { findings: { code: string }[] }[];
    const codes = entry!.findings.map((f) => f.code);
    const declared: readonly string[] = eventNamed(last.event_type)!.findings;
    t.ok(codes.includes(expected), `${last.event_type}: ${expected} raised (${codes.join(', ')})`);
    t.same(
      codes.filter((c) => !declared.includes(c)),
      [],
      `${last.event_type}: ${expected}'s findings are in src/events' list`,
    );
  }
});
