import t from 'tap';
import { runProbe } from '../src/probe/battery.js';
import { probeExitCode, walletFails } from '../src/probe/report.js';
import type { ProbeReport } from '../src/probe/types.js';
import { type Defect, DEFECTS } from './wallets/zoo-defects.js';
import { startZooWallet, type ZooOptions } from './wallets/zoo-wallet.js';

/**
 * The probe against the zoo (test/wallets): every defect caught and named by the check that owns it,
 * the correct variants never flagged. Prints the catch rate.
 */

/** The check that names each defect (a probe check or a wallet check). */
const NAMED_BY: Record<Defect, string> = {
  'double-debit-resend': 'WALLET_IDEMPOTENT',
  'replay-stale-balance': 'WALLET_IDEMPOTENT',
  'r3-on-resend': 'WALLET_IDEMPOTENT',
  'float-money': 'WALLET_BALANCE_EXACT',
  'settle-winloss-only': 'WALLET_BALANCE_EXACT',
  'r0-short-bet': 'WALLET_REFUSES_SHORT_BET',
  'r0-short-clamp': 'WALLET_REFUSES_SHORT_BET',
  'no-player-lock': 'WALLET_CONCURRENCY_SAFE',
  'settle-unknown-round': 'WALLET_ROUND_RULES',
  'resettle-new-txid': 'WALLET_ROUND_RULES',
  'any-currency': 'WALLET_ROUND_RULES',
  'unknown-player-r0': 'unknown-player',
  'missing-headers': 'WALLET_REPLY_VALID',
  'leaks-api-key': 'WALLET_REPLY_VALID',
  'wrong-content-type': 'WALLET_REPLY_VALID',
  'lowercase-code': 'WALLET_REPLY_VALID',
  'no-balance-on-r0': 'WALLET_REPLY_VALID',
  'no-echo': 'WALLET_REPLY_VALID',
  'balance-as-string': 'WALLET_REPLY_VALID',
  slow: 'WALLET_ANSWERS_IN_TIME',
  'garbage-bytes': 'WALLET_ANSWERS_IN_TIME',
  'non-json': 'WALLET_REPLY_VALID',
  'http-500': 'WALLET_REPLY_VALID',
  'accepts-wrong-types': 'wrong-types',
  'accepts-missing-timestamp': 'missing-timestamp',
  'accepts-nonpositive-amount': 'nonpositive-amount',
  'accepts-excess-digits': 'excess-fraction-digits',
  'accepts-bad-totals': 'totals-mismatch',
  'accepts-bet-on-settled-round': 'WALLET_ROUND_RULES',
  'accepts-winloss-below-stake': 'winloss-below-stake',
  'accepts-unknown-bet-index': 'WALLET_ROUND_RULES',
  'accepts-stake-mismatch': 'WALLET_ROUND_RULES',
  'accepts-bad-result-detail': 'unparsable-result-detail',
  'accepts-wrong-api-id': 'wrong-api-id',
  'open-bet-result': 'bad-credentials-settlement',
};

/** The time-outs of these runs: the slow defect answers settlements in 1.5 s, beyond a 1 s provider time-out. */
const CLIENT_TIMEOUT_MS = 1000;
const SLOW_MS = 1500;

const failing = (r: ProbeReport) => [
  ...r.checks.filter((c) => c.status === 'fail').map((c) => c.name),
  ...r.walletChecks.filter(walletFails).map((c) => c.id),
];

async function probeZoo(o: ZooOptions, user = 'player-1'): Promise<ProbeReport> {
  const zoo = await startZooWallet({ slowMs: SLOW_MS, ...o });
  try {
    return await runProbe({
      url: zoo.url,
      apiId: 'zoo',
      apiKey: 'zoo-key',
      user,
      currency: 'USD',
      scale: 2,
      clientTimeoutMs: CLIENT_TIMEOUT_MS,
      timeoutMs: 5000,
      backoffMs: 100,
    });
  } finally {
    await zoo.close();
  }
}

t.test('every zoo defect is caught and named; one root cause gives one failure', async (t) => {
  const rows: string[] = [];
  let caught = 0;
  for (const defect of DEFECTS) {
    const r = await probeZoo({ defect });
    const failed = failing(r);
    const named = failed.includes(NAMED_BY[defect]);
    if (named) caught++;
    rows.push(`${named ? 'caught' : 'MISSED'}  ${defect.padEnd(30)} ${failed.join(', ') || '(nothing failed)'}`);
    t.ok(named, `${defect}: ${NAMED_BY[defect]} fails (failed: ${failed.join(', ') || 'nothing'})`);
    t.equal(probeExitCode(r), 1, `${defect}: exit 1`);
    // A reply's time is the loaded machine's as much as the wallet's: WALLET_ANSWERS_IN_TIME is not held against the root cause.
    const others = failed.filter((id) => id !== NAMED_BY[defect] && id !== 'WALLET_ANSWERS_IN_TIME');
    t.same(others, [], `${defect}: one root cause, one failing check (${failed.join(', ')})`);
  }
  const rate = (100 * caught) / DEFECTS.length;
  t.comment(`catch rate: ${caught}/${DEFECTS.length} = ${rate.toFixed(1)}%\n${rows.join('\n')}`);
  t.ok(rate >= 95, `catch rate ${rate.toFixed(1)}% >= 95%`);
});

t.test('the correct variants are never flagged', async (t) => {
  const variants: [string, ZooOptions, string?][] = [
    ['fast', {}],
    ['slow but in time (every reply 150 ms late)', { delayMs: 150 }],
    ['extra headers, Content-Type with charset', { extraHeaders: true }],
    ['replay answered with the original balance', { replay: 'original' }],
    ['replay answered with the current balance', { replay: 'current' }],
    ['unknown players created with a balance', { autoCreate: '500' }],
  ];
  let alarms = 0;
  for (const [name, o] of variants) {
    const r = await probeZoo(o);
    const failed = failing(r);
    alarms += failed.length;
    t.same(failed, [], `${name}: nothing fails`);
    t.equal(probeExitCode(r), 0, `${name}: exit 0`);
    t.same(r.unsettled, [], `${name}: every round settled`);
    t.same(
      r.checks.filter((c) => c.status === 'skip').map((c) => c.name),
      [],
      `${name}: every check judged`,
    );
  }
  t.comment(`false alarms: ${alarms}`);
});
