// CI must not go green while a window is open: `report --fail-on pending`, `report --wait`, and
// verify's `no_pending_checks`, run as a user runs them (the built CLI against a real simulator);
// and the HTML page as evidence (the session, the timing profile, each violation's excerpts).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bet, HEADERS, login, result, TEST_SCENARIO } from '../helpers/app.js';
import { post } from '../helpers/net.js';
import { run, start } from '../helpers/spawn-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-report-ci-'));
const USD = { currency: 'USD' };
// A lost bet reply: pending while its retry window is open, failed once it closes. One scenario
// with a window no CLI start outlasts, one with a window of 20 s for `--wait` to see close (long
// enough for a CLI to start on a busy machine).
const lostScenario = (name: string, windowS: number) => {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      ...TEST_SCENARIO,
      rules: [{ name: 'lost', when: { event_type: 'bet', user_id: 'usd' }, then: { drop_connection: true }, times: 1 }],
      grading: { retry_window_s: windowS, client_timeout_s: 1, round_max_age_s: windowS },
    }),
  );
  return path;
};
const scenario = lostScenario('lost.json', 600);
const closing = lostScenario('closing.json', 20);

t.test('a lost reply never resent: pending, then failed; --fail-on pending and --wait', async (t) => {
  const sim = await start(t, ['--port', '0', '--scenario', scenario, '--log-level', 'warn']);
  const cb = `${sim.url}/callback`;
  await post(cb, login('usd'), HEADERS);
  t.ok((await post(cb, bet('usd', 'G1', [['1', 'P', 10]], USD), HEADERS, 5000)).error, 'the reply is dropped');

  let r = await run(['report', '--url', sim.url]);
  t.equal(r.code, 0, 'pending alone does not fail by default');
  t.match(r.stdout, /… PENDING\s+LOST_REPLY_RETRIED/);
  t.match(r.stdout, /^session \w+ since /m, 'the session is named');
  t.match(r.stdout, /^timing: /m, 'the timing profile is shown');
  r = await run(['report', '--url', sim.url, '--fail-on', 'pending']);
  t.equal(r.code, 1, '--fail-on pending fails while a window is open');
  t.match(r.stdout, /FAIL: .*LOST_REPLY_RETRIED/);
  t.equal((await run(['report', '--url', sim.url, '--fail-on', 'nonsense'])).code, 1, 'a bad --fail-on is refused');
});

t.test('report --wait: waits for the window to close, then fails; the HTML evidence', async (t) => {
  const sim = await start(t, ['--port', '0', '--scenario', closing, '--log-level', 'warn']);
  const cb = `${sim.url}/callback`;
  await post(cb, login('usd'), HEADERS);
  t.ok((await post(cb, bet('usd', 'G1', [['1', 'P', 10]], USD), HEADERS, 5000)).error, 'the reply is dropped');
  const html = join(dir, 'report.html');
  const r = await run(['report', '--url', sim.url, '--wait', '60', '--html', html]);
  t.equal(r.code, 1, 'after waiting, the window closed and the check failed');
  t.match(r.stderr, /waiting for \d+ pending check.*LOST_REPLY_RETRIED/, 'what it waits for, on stderr');
  t.match(r.stdout, /✗ FAIL\s+LOST_REPLY_RETRIED/);
  const page = readFileSync(html, 'utf8');
  t.match(page, /session \w+ since/, 'the HTML names the session');
  t.match(page, /Timing profile: /);
  t.match(
    page,
    /<details><summary>evidence: the callbacks it cites<\/summary>.*<pre>request \{&quot;headers&quot;:.*&quot;api-key&quot;:&quot;sa\*+&quot;/s,
    'masked request excerpt',
  );
  t.match(page, /<pre>reply \{&quot;status&quot;:200/, 'the reply excerpt');
});

t.test('verify: "no_pending_checks" fails while a window is open and passes once none is', async (t) => {
  const sim = await start(t, ['--port', '0', '--scenario', scenario, '--log-level', 'warn']);
  const cb = `${sim.url}/callback`;
  const expect = join(dir, 'expect.json');
  writeFileSync(expect, JSON.stringify({ no_pending_checks: true }));
  await post(cb, login('usd'), HEADERS);
  const lost = bet('usd', 'G1', [['1', 'P', 10]], USD);
  await post(cb, lost, HEADERS, 5000);
  let r = await run(['verify', '--url', sim.url, '--expect', expect]);
  t.equal(r.code, 1, r.stdout);
  t.match(r.stdout, /no check is pending/);
  t.match(r.stdout, /LOST_REPLY_RETRIED/);
  await new Promise((resolve) => setTimeout(resolve, 600)); // a back-off above min_retry_gap_ms
  await post(cb, lost, HEADERS, 5000); // resent: the window closes
  await post(cb, result('usd', 'G1', [['1', 'P', 10, 0]], USD), HEADERS, 5000); // the round settled
  r = await run(['verify', '--url', sim.url, '--expect', expect]);
  t.equal(r.code, 0, r.stdout);
});
