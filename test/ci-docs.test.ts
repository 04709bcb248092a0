// docs/ci.md's example runs as written: `start` with the page's scenario, the provider's suite the
// page describes, then `verify` with the page's expectations: exit 0. And the failing client the page
// describes gets the failure the page shows, line for line (transaction ids aside).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bet, HEADERS, login, result } from './helpers/app.js';
import { post } from './helpers/net.js';
import { doc, section, shBlocks } from './helpers/readme.js';
import { run, start } from './helpers/spawn-cli.js';

t.setTimeout(120_000); // two simulators and two verify runs, each a node start

const page = doc('docs/ci.md');
const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
const scenario = blocks.find((b) => 'rules' in b)!;
const expectations = blocks.find((b) => 'counts' in b)!;
const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-ci-docs-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const [scenarioFile, expectFile] = [join(dir, 'ci-scenario.json'), join(dir, 'expectations.json')];
writeFileSync(scenarioFile, JSON.stringify(scenario));
writeFileSync(expectFile, JSON.stringify(expectations));

const ROUND = 'BAC07-20251122-0415';

/**
 * The provider's suite of the page: player-1 logs in, bets 10000 KRW on ROUND (resent when its reply
 * is lost, unless `resends` is false) and settles `settledAs` with a win of 5000; player-2 (3000) bets 5000.
 */
async function suite(url: string, { resends = true, settledAs = ROUND } = {}): Promise<string[]> {
  const cb = `${url}/callback`;
  const said: string[] = [];
  const send = async (body: { event_type: string; user_id: string; transaction_id: string }) => {
    const r = await post(cb, body, HEADERS);
    said.push(`${body.event_type} ${body.user_id} ${r.error ? 'no reply' : r.body.code}`);
    return r;
  };
  await send(login('player-1'));
  const placed = bet('player-1', ROUND, [['1', 'P', 10000]]);
  if ((await send(placed)).error && resends) await send(placed);
  await send({ ...result('player-1', settledAs, [['1', 'P', 10000, 5000]]), transaction_id: `bet_result-${process.pid}-1` });
  await send(login('player-2'));
  await send(bet('player-2', 'BAC07-20251122-0416', [['1', 'P', 5000]]));
  return said;
}

t.test('the five lines start the page scenario and verify the page expectations', async (t) => {
  const [five] = shBlocks(section(page, 'Any CI, in five lines'));
  t.match(five, '--scenario ci-scenario.json');
  t.match(five, '--expect expectations.json');
  t.match(page, 'this scenario (the `ci-scenario.json` of the five lines above)');
});

t.test("docs/ci.md's expectations hold for the suite the page describes", async (t) => {
  const sim = await start(t, ['--port', '0', '--scenario', scenarioFile, '--log-level', 'warn']);
  t.same(
    await suite(sim.url),
    ['login player-1 R0', 'bet player-1 no reply', 'bet player-1 R0', 'bet_result player-1 R0', 'login player-2 R0', 'bet player-2 R4'],
    "the scenario's rule loses the first bet's reply; its resend is answered",
  );
  const verified = await run(['verify', '--url', sim.url, '--expect', expectFile]);
  t.equal(verified.code, 0, verified.stdout + verified.stderr);
  t.match(verified.stdout, /✓ retries happened and were replayed: 1 callback/);
  t.match(verified.stdout, /10 expectations: 10 held, 0 failed/);
});

t.test('the failure the page shows is the one its failing client gets', async (t) => {
  const sim = await start(t, ['--port', '0', '--scenario', scenarioFile, '--log-level', 'warn']);
  await suite(sim.url, { resends: false, settledAs: 'BAC07-20251122-0416' });
  const verified = await run(['verify', '--url', sim.url, '--expect', expectFile]);
  t.equal(verified.code, 1);
  const shown = /### What a failure looks like[\s\S]*?```\n([\s\S]*?)```/.exec(page)![1]!;
  const same = (text: string) => text.replace(/\b(bet|bet_result)-[\w-]+/g, '$1-<id>').trimEnd();
  t.equal(same(verified.stdout.replace(sim.url, 'http://127.0.0.1:8080')), same(shown));
});
