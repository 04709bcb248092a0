import t from 'tap';
import { type ProbeReport, runProbe } from '../src/probe/battery.js';
import { formatProbeHtml } from '../src/probe/format-html.js';
import { formatProbeReport, probeExitCode, probeJUnit, walletFails } from '../src/probe/report.js';
import { startZooWallet, type ZooOptions } from './wallets/zoo-wallet.js';

/**
 * One root cause, one failure: a check that depends on another's root cause says "see" it instead
 * of failing again. Masked keys say whether they are the configured one. A wallet that creates
 * unknown players passes with a warning.
 */

const failing = (r: ProbeReport) => [
  ...r.checks.filter((c) => c.status === 'fail').map((c) => c.name),
  ...r.walletChecks.filter(walletFails).map((c) => c.id),
];

async function probeZoo(o: ZooOptions) {
  const zoo = await startZooWallet(o);
  t.teardown(() => zoo.close());
  const report = await runProbe({
    url: zoo.url,
    apiId: 'zoo',
    apiKey: 'zoo-key',
    user: 'player-1',
    currency: 'USD',
    scale: 2,
    backoffMs: 50,
  });
  return { report, text: formatProbeReport(report) };
}

t.test('a resend applied twice fails WALLET_IDEMPOTENT alone: the checks it breaks say "see WALLET_IDEMPOTENT"', async (t) => {
  const { report, text } = await probeZoo({ defect: 'double-debit-resend' });
  t.same(failing(report), ['WALLET_IDEMPOTENT'], text);
  t.equal(probeExitCode(report), 1);
  for (const name of ['duplicate-replay', 'conflicting-reuse']) {
    const c = report.checks.find((x) => x.name === name)!;
    t.equal(c.status, 'skip', `${name}: not judged`);
    t.equal(c.see, 'WALLET_IDEMPOTENT', `${name}: sees the owner`);
    t.match(text, new RegExp(`^SKIP {2}${name} .*\\(not judged, see WALLET_IDEMPOTENT: `, 'm'));
  }
  t.match(probeJUnit(report), /<skipped message="see WALLET_IDEMPOTENT: /);
  t.ok(text.split('\n').length <= 60, `a short report: ${text.split('\n').length} lines`);
});

t.test('an unknown player given R0 on money that is not there fails unknown-player alone: the wallet checks see it', async (t) => {
  const { report, text } = await probeZoo({ defect: 'unknown-player-r0' });
  t.same(failing(report), ['unknown-player'], text);
  for (const id of ['WALLET_BALANCE_EXACT', 'WALLET_REFUSES_SHORT_BET']) {
    const c = report.walletChecks.find((x) => x.id === id)!;
    t.equal(c.status, 'pass', `${id}: its other chances passed`);
    t.equal(c.see, 'unknown-player', `${id}: sees the owner`);
    t.same(c.violations, [], `${id}: nothing counted twice`);
    t.match(text, new RegExp(`^PASS {2}${id} .*, \\d+ not judged here \\(see unknown-player\\)$`, 'm'));
  }
  t.ok(text.split('\n').length <= 60, `a short report: ${text.split('\n').length} lines`);
});

t.test('an R0 to a body a refusal check sends fails that check alone: WALLET_REFUSES_INVALID sees it, no second warning', async (t) => {
  const { report, text } = await probeZoo({ defect: 'accepts-bad-result-detail' });
  t.same(failing(report), ['unparsable-result-detail'], text);
  const c = report.walletChecks.find((x) => x.id === 'WALLET_REFUSES_INVALID')!;
  t.not(c.status, 'fail', 'not a warning of its own');
  t.equal(c.see, 'unparsable-result-detail');
  t.same(c.violations, [], 'nothing counted twice');
  t.match(text, /WALLET_REFUSES_INVALID .*\d+ not judged here \(see unparsable-result-detail\)$/m);
});

t.test('a masked key says whether it is the configured one', async (t) => {
  // The defect: a wrong key gets R2 with the wallet's own (configured) key in the reply.
  const { report, text } = await probeZoo({ defect: 'leaks-api-key' });
  t.same(failing(report), ['WALLET_REPLY_VALID'], text);
  t.match(text, /→ POST .*\n.*api-key: zo\*+ \(not the configured key\)\n.*\n.*← HTTP 200 .*\n.*api-key: zo\*+ \(the configured key\)/);
  t.match(formatProbeHtml(report), /api-key: zo\*+ \(not the configured key\)/);
  t.notMatch(text, /zoo-key/, 'never the key itself');
  // The fix says what to change for the leak, not only what a reply looks like.
  t.match(
    text,
    /^ {6}fix: Reply with HTTP 200.* On a reply to a caller whose credentials were wrong \(R2\), echo back the Api-Id and Api-Key it sent/m,
  );
});

t.test('short bets accepted (R0, the balance clamped to 0) fail WALLET_REFUSES_SHORT_BET alone: the race says "see"', async (t) => {
  const { report, text } = await probeZoo({ defect: 'r0-short-clamp' });
  t.same(failing(report), ['WALLET_REFUSES_SHORT_BET'], text);
  const c = report.checks.find((x) => x.name === 'concurrent-overdraw')!;
  t.equal(c.status, 'skip', 'not judged');
  t.equal(c.see, 'WALLET_REFUSES_SHORT_BET');
  t.match(text, /^SKIP {2}concurrent-overdraw .*\(not judged, see WALLET_REFUSES_SHORT_BET: 5 of 5 simultaneous bets .* were answered R0/m);
  t.notMatch(text, /per-player lock \(or an atomic/, 'no fix about locking');
});

t.test(
  'a player created on sight, then a bet above its balance accepted: WALLET_REFUSES_SHORT_BET alone, unknown-player says "see"',
  async (t) => {
    const { report, text } = await probeZoo({ defect: 'r0-short-bet', autoCreate: '100' });
    t.same(failing(report), ['WALLET_REFUSES_SHORT_BET'], text);
    const c = report.checks.find((x) => x.name === 'unknown-player')!;
    t.equal(c.status, 'skip', 'not judged');
    t.equal(c.see, 'WALLET_REFUSES_SHORT_BET');
    t.match(text, /^SKIP {2}unknown-player .*\(not judged, see WALLET_REFUSES_SHORT_BET: .*created .* with a balance of 100/m);
    const short = report.walletChecks.find((x) => x.id === 'WALLET_REFUSES_SHORT_BET')!;
    t.equal(short.see, undefined, 'it defers to nobody');
    t.ok(
      short.violations.some((v) => /-unknown-/.test(v.user_id ?? '')),
      "the stranger's bet is among its violations",
    );
  },
);

t.test('a wallet that creates unknown players passes, with a warning that a production wallet refuses them', async (t) => {
  const { report, text } = await probeZoo({ autoCreate: '500' });
  t.same(failing(report), [], text);
  t.equal(probeExitCode(report), 0, 'a warning, not a failure');
  const c = report.checks.find((x) => x.name === 'unknown-player')!;
  t.equal(c.status, 'pass');
  t.match(c.warnings, [
    /a player it never saw \(balance 500\): it creates unknown players.*a production wallet should refuse a player it does not know \(R3\)/,
  ]);
  t.match(text, /^WARN {2}unknown-player .*\n {6}⚠ the wallet answered R0 to a login of player-1-unknown-/m);
  t.match(text, /→ PASS \(1 warning: unknown-player\)$/m);
  t.match(formatProbeHtml(report), /warning: the wallet answered R0 to a login of player-1-unknown-/);

  const refusing = await probeZoo({});
  t.equal(refusing.report.checks.find((x) => x.name === 'unknown-player')!.warnings, undefined, 'a wallet that refuses them: no warning');
});
