import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { composeCallback, runSend, type SendOptions } from '../src/commands/send.js';
import { formatSent } from '../src/commands/send-reply.js';
import { money } from '../src/kernel/money.js';
import { ROOT } from '../src/kernel/paths.js';
import { buildTestApp } from './helpers/app.js';
import { runCli } from './helpers/run-here.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'dist/src/cli.js');

async function listening() {
  const { app, sim } = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, sim, url: `http://127.0.0.1:${port}/callback` };
}

const defaults = (url: string, extra: Partial<SendOptions> = {}): SendOptions => ({
  url,
  user: 'player-1',
  currency: 'KRW',
  amount: money(1000),
  winloss: money(0),
  table: 'WS01',
  betType: 'P',
  feedbackData: 'fb',
  apiId: 'sandbox',
  apiKey: 'sandbox-key',
  timeout: 5000,
  ...extra,
});

t.test('a bet and its bet_result over a real socket', async (t) => {
  const { app, sim, url } = await listening();
  t.teardown(() => app.close());

  const bet = await runSend('bet', defaults(url, { game: 'G-send', amount: money(1500) }));
  t.equal(bet.reply?.status, 200);
  t.match(JSON.parse(bet.reply!.body), { code: 'R0', event_type: 'bet', user_id: 'player-1', latest_balance: 998500 });
  const settle = await runSend('bet_result', defaults(url, { game: 'G-send', amount: money(1500), winloss: money(-1500) }));
  t.match(JSON.parse(settle.reply!.body), { code: 'R0', event_type: 'bet_result', latest_balance: 998500 });
  t.equal(settle.reply?.headers['callback-url'], url, 'the reply echoes Callback-URL');

  const [first, second] = sim.journal.list();
  t.same(first?.findings, [], 'wallet-sim found nothing wrong with the bet');
  t.same(second?.findings, [], 'nor with the bet_result');
  const body = second!.request.body as {
    timestamp: number;
    transaction_id: string;
    data: { result_detail: string; total_winloss: number; result: string };
  };
  t.ok(Number.isInteger(body.timestamp), 'integer timestamp');
  t.not(body.transaction_id, (first!.request.body as { transaction_id: string }).transaction_id, 'fresh transaction ids');
  t.same(
    JSON.parse(body.data.result_detail),
    { pscore: 2, bscore: 9, pcards: ['C2', 'D10'], bcards: ['S4', 'H5'] },
    'result_detail is a JSON string',
  );
  t.equal(body.data.result, 'B');
  t.equal(first!.request.headers['callback-url'], url);

  const text = formatSent(settle);
  t.match(text, /^→ POST http:\/\/127\.0\.0\.1:\d+\/callback\n/);
  t.match(text, /api-key: sa\*+\n/, 'the key is masked');
  t.match(text, /← HTTP 200 \(\d+ ms\)/);
  t.match(text, /R0: Success processing$/);
});

t.test('amounts are exact decimals in the body', async (t) => {
  const body = JSON.parse(composeCallback('bet', { ...defaults(''), currency: 'USD', amount: money('0.30') }));
  t.equal(body.data.total_bet_amount, 0.3);
  t.equal(JSON.stringify(body.data.bets[0].bet_amount), '0.3');
  t.throws(() => composeCallback('bet_result', defaults('')), /--game/, 'bet_result needs the round');
});

t.test('--body sends a file byte for byte', async (t) => {
  const { app, sim, url } = await listening();
  t.teardown(() => app.close());
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-send-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'login.json');
  writeFileSync(file, '{"transaction_id":"fixed-1","event_type":"login","timestamp":1,"feedback_data":"","user_id":"usd"}');
  const x = await runSend('login', defaults(url, { body: file }));
  t.equal(x.request.body, '{"transaction_id":"fixed-1","event_type":"login","timestamp":1,"feedback_data":"","user_id":"usd"}');
  t.match(JSON.parse(x.reply!.body), { code: 'R0', latest_balance: 100 });
  t.match(sim.journal.list()[0]?.findings, [{ code: 'TIMESTAMP_SKEWED' }], 'the file was sent as is, old timestamp and all');
});

t.test('the built CLI: send over a socket, exit code from the reply code', async (t) => {
  const { app, sim, url } = await listening();
  t.teardown(() => app.close());
  const ok = await run(process.execPath, [
    CLI,
    'send',
    'bet',
    '--url',
    url,
    '--user',
    'usd',
    '--currency',
    'USD',
    '--amount',
    '2.5',
    '--game',
    'G-cli',
  ]);
  t.match(ok.stdout, /"total_bet_amount": 2\.5/);
  t.match(ok.stdout, /"latest_balance":97\.5/);
  t.equal(sim.player('usd')?.balance.toFixed(), '97.5');

  const refused = await run(process.execPath, [CLI, 'send', 'login', '--url', url, '--api-key', 'wrong']).catch(
    (e: { code: number; stdout: string }) => e,
  );
  t.equal((refused as { code?: number }).code, 1, 'exit 1 on a non-R0 reply');
  t.match(refused.stdout, /R2: Unauthorized request/);

  const usage = await run(process.execPath, [CLI, 'send', 'bet_result', '--url', url]).catch((e: { code: number; stderr: string }) => e);
  t.equal((usage as { code?: number }).code, 1);
  t.match(usage.stderr, /--game <game_no>/);
});

t.test("send without --api-id/--api-key sends the credentials the simulator expects (its scenario's); given ones win", async (t) => {
  const { app } = await buildTestApp({ credentials: { api_id: 'prov', api_key: 'k9-secret' } });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callback`;
  const ok = await run(process.execPath, [CLI, 'send', 'login', '--url', url]);
  t.match(ok.stdout, /R0: /, 'answered R0');
  t.match(ok.stderr, /Api-Id prov and its key from the simulator's scenario ".*"; --api-id and --api-key choose/);
  t.notMatch(ok.stderr, /k9-secret/, 'the key is not printed');
  const given = await run(process.execPath, [CLI, 'send', 'login', '--url', url, '--api-id', 'prov', '--api-key', 'wrong']).catch(
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  t.equal((given as { code?: number }).code, 1, 'a given key is sent as given');
  t.match(given.stdout, /R2: Unauthorized request/);
});

t.test('send says what the round needs next only once the reply is known', async (t) => {
  const { app } = await buildTestApp({
    rules: [
      { name: 'lost', when: { event_type: 'bet', user_id: 'lost' }, then: { drop_connection: true }, times: 1 },
      { name: 'r1', when: { event_type: 'bet_result', user_id: 'r1' }, then: { code: 'R1' }, times: 1 },
      { name: 'odd', when: { event_type: 'bet', user_id: 'odd' }, then: { body: { code: 'R9' } }, times: 1 },
    ],
  });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const url = `${base}/callback`;
  // Parsed in this process as the built CLI parses it (test/helpers/run-here.ts); the spawned
  // command is above.
  const sendTo = (to: string, ...args: string[]) => runCli(['send', ...args, '--url', to, '--currency', 'USD']);
  const send = (...args: string[]) => sendTo(url, ...args);

  const won = await send('bet', '--user', 'usd', '--amount', '1', '--game', 'G-ok');
  t.match(won.stderr, 'wallet-sim send: game_no G-ok\n', 'the round, said before the reply');
  t.match(
    won.stderr,
    /\nwallet-sim send: settle round G-ok: send bet_result with the same --url and credentials, --user usd --currency USD --amount 1 --game G-ok --winloss </,
    'R0: settle it, with the options the bet was built from',
  );
  const settled = await send('bet_result', '--user', 'usd', '--amount', '1', '--winloss', '-1', '--game', 'G-ok');
  t.match(settled.stdout, /"code":"R0"/, 'the settlement as advised is applied');

  const poor = await send('bet', '--user', 'usd', '--amount', '500', '--game', 'G-poor', '--transaction-id', 'tx-poor');
  t.match(
    poor.stderr,
    /R4 refuses bet tx-poor: do not resend it; settle round G-poor only if another of its bets got R0\n$/,
    'R4: leave it',
  );

  const lost = await send('bet', '--user', 'lost', '--amount', '1', '--game', 'G-lost', '--transaction-id', 'tx-lost');
  t.match(lost.stdout, '← no reply after');
  t.match(
    lost.stderr,
    'no answer: the bet may or may not be booked; resend it unchanged with the same options, --user lost --currency USD --amount 1 ' +
      '--game G-lost --transaction-id tx-lost, within the retry window',
  );
  t.match(lost.stderr, /settle round G-lost only once the bet gets R0\n$/);
  const again = await send('bet', '--user', 'lost', '--amount', '1', '--game', 'G-lost', '--transaction-id', 'tx-lost');
  t.match(again.stdout, /"code":"R0"/, 'the resend, unchanged, is answered R0');

  await send('bet', '--user', 'r1', '--amount', '1', '--game', 'G-r1');
  const failed = await send(
    'bet_result',
    '--user',
    'r1',
    '--amount',
    '1',
    '--winloss',
    '-1',
    '--game',
    'G-r1',
    '--transaction-id',
    'tx-r1',
  );
  t.match(
    failed.stderr,
    /R1 \(failed processing\): the bet_result may or may not be booked; resend it unchanged with .*--transaction-id tx-r1, /,
  );
  t.notMatch(failed.stderr, 'settle round', 'a bet_result is the settlement');

  const odd = await send('bet', '--user', 'odd', '--amount', '1', '--game', 'G-odd');
  t.match(
    odd.stderr,
    /no code of the spec \(R9\): the bet may or may not be booked; resend it unchanged/,
    'a code outside the spec is no refusal',
  );

  const noPath = await sendTo(base, 'bet', '--user', 'usd', '--amount', '1');
  t.match(noPath.stderr, /--url is the callback URL/);
  t.notMatch(noPath.stderr, /resend|settle round/, 'a wrong URL: no advice about the round');

  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-send-next-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'settle.json');
  writeFileSync(
    file,
    composeCallback('bet_result', {
      ...defaults(url),
      user: 'usd',
      currency: 'USD',
      amount: money(1),
      game: 'G-never',
      transactionId: 'tx-file',
    }),
  );
  const refused = await send('bet', '--body', file);
  t.match(
    refused.stderr,
    /R3 refuses bet_result tx-file: do not resend it; round G-never stays open until a corrected settlement is applied/,
    "the body's own event",
  );
});
