// A correct wallet whose replies to some simultaneous bets come after the probe's own time-out:
// the probe resends those unchanged and the wallet replays them (R0 and the balance as it is then,
// later bets included). concurrent-bets judged the replays as steps of the serial order and failed
// the wallet for lost updates it never made (a false-alarm hunt found it, 8 runs of 8).
import t from 'tap';
import { runProbe } from '../src/probe/battery.js';
import { formatProbeReport, probeExitCode, walletFails } from '../src/probe/report.js';
import { buildTestApp } from './helpers/app.js';
import { expectSteps } from '../src/probe/expect-steps.js';
import type { Check } from '../src/probe/session.js';
import { money } from '../src/kernel/money.js';

t.test('concurrent-bets: resent bets are replays, not steps; the others still must be distinct steps', async (t) => {
  const { app } = await buildTestApp({
    rules: [
      // Applied at once, answered after 700 ms: past the probe's 500 ms wait, so it resends.
      { name: 'slow 0.1 bets', when: { event_type: 'bet', min_amount: 0.1, max_amount: 0.1 }, then: { delay_ms: 700 }, times: 3 },
    ],
  });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const report = await runProbe({
    url: `http://127.0.0.1:${port}/callback`,
    apiId: 'sandbox',
    apiKey: 'sandbox-key',
    user: 'burst',
    currency: 'USD',
    scale: 2,
    timeoutMs: 500,
    clientTimeoutMs: 3000,
  });
  const burst = report.checks.find((c) => c.name === 'concurrent-bets')!;
  t.not(burst.status, 'fail', formatProbeReport(report));
  const bets = burst.exchanges.filter((x) => /^bet \d+\/10/.test(x.label)).map((x) => JSON.parse(x.request.body).transaction_id);
  t.ok(bets.length > new Set(bets).size, 'some simultaneous bet was resent (the case under test happened)');
  t.ok(
    burst.assertions.some((a) => a.name === 'balance-arithmetic' && /resent/.test(a.message)),
    'the steps were judged, the replays apart',
  );
  t.same(
    report.checks.filter((c) => c.status === 'fail').map((c) => c.name),
    [],
    'no check fails',
  );
  t.same(
    report.walletChecks.filter(walletFails).map((c) => c.id),
    [],
    'no wallet check fails',
  );
  t.equal(probeExitCode(report), 0);
});

t.test('expectSteps as a table: replays apart, a lost update among the first replies still fails', async (t) => {
  const judged = (balances: [string, number][], start = '10') => {
    const said: { passed: boolean; message: string }[] = [];
    const c = { assert: (_name: string, passed: boolean, message: string) => void said.push({ passed, message }) } as unknown as Check;
    const replies = balances.map(([b, attempts], index) => ({ balance: money(b), balanceText: b, index, attempts }));
    expectSteps(c, replies, money(start), money('-1'), 'debit');
    return said[0]!;
  };
  const rows: [string, [string, number][], boolean][] = [
    [
      'three first replies, the serial steps',
      [
        ['9', 1],
        ['8', 1],
        ['7', 1],
      ],
      true,
    ],
    [
      'a lost update: two replies of one step',
      [
        ['9', 1],
        ['9', 1],
        ['7', 1],
      ],
      false,
    ],
    [
      'a replay of the last balance beside two steps',
      [
        ['7', 2],
        ['9', 1],
        ['8', 1],
      ],
      true,
    ],
    [
      'a replay, and the other two first replies of one step',
      [
        ['7', 2],
        ['9', 1],
        ['9', 1],
      ],
      false,
    ],
    [
      'a first reply off every step',
      [
        ['7', 2],
        ['9', 1],
        ['6', 1],
      ],
      false,
    ],
    [
      'every reply a replay: nothing to tell apart',
      [
        ['7', 2],
        ['7', 3],
      ],
      true,
    ],
  ];
  for (const [name, balances, passes] of rows) {
    const said = judged(balances);
    t.equal(said.passed, passes, `${name}: ${said.message}`);
  }
  t.match(
    judged([
      ['7', 2],
      ['9', 1],
      ['9', 1],
    ]).message,
    /3 concurrent debits of 1 from 10, 1 of them resent .*: latest_balance values of the others 9, 9; each must be a different one of 7, 8, 9/,
  );
});
