// `wallet-sim reconcile` in proxy mode, against a real wallet (wallet-sim in another process) behind
// the proxy: what the wallet applied without a readable answer, or under other credentials than the
// scenario's, is not in the proxy's ledger, and is listed as unresolved — never as agreement, never
// as MISSING_IN_WALLET.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { bet, login } from '../helpers/app.js';
import { runHere } from '../helpers/run-here.js';
import { reconcileCommand } from '../../src/commands/reconcile.js';
import { getJson, sendCallback, startProxy, startUpstream, UPSTREAM_SCENARIO } from './upstream.js';
import { tempDir } from '../helpers/temp.js';

const usd = { currency: 'USD' };
const dir = tempDir('wallet-sim-proxy-reconcile-');
const HEADER = 'transaction_id,event_type,user_id,game_no,amount,status';

/** A provider file of `lines` (after the header). */
function providerFile(name: string, ...lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, [HEADER, ...lines].join('\n') + '\n');
  return path;
}
const reconcile = (base: string, file: string) => runHere(reconcileCommand(), ['--url', base, '--provider', file]);

/** Waits for the state, never for a time: until `get` gives something. */
async function until<T>(get: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const got = await get();
    if (got !== undefined) return got;
  }
  throw new Error('not in 20 s');
}

t.test('a bet the wallet applied and closed the connection on: unresolved, whatever the provider booked', async (t) => {
  // The real wallet applies the first bet of `lost`, then closes the connection without a reply.
  const upstream = await startUpstream(t, {
    ...UPSTREAM_SCENARIO,
    rules: [{ name: 'lost', when: { event_type: 'bet', user_id: 'lost' }, then: { drop_connection: true }, times: 1 }],
  });
  const proxy = await startProxy(t, {}, upstream.url);
  const fine = bet('fine', 'G1', [['1', 'P', 10]], usd);
  const lost = bet('lost', 'G1', [['1', 'P', 10]], usd);
  for (const c of [login('fine'), fine, login('lost')]) t.equal((await sendCallback(proxy.url, c))?.code, 'R0');
  t.equal(await sendCallback(proxy.url, lost), undefined, 'the provider got no reply');
  const applied = await until(async () =>
    ((await upstream.get('/admin/ledger')) as { transaction_id: string }[]).find((w) => w.transaction_id === lost.transaction_id),
  );
  t.ok(applied, 'the real wallet applied it');
  t.same(
    ((await getJson(proxy.base, '/admin/ledger')) as { transaction_id: string }[]).map((w) => w.transaction_id),
    [fine.transaction_id],
    "the proxy's ledger holds only what the wallet answered R0 to",
  );

  const fineRow = `${fine.transaction_id},bet,fine,G1,10,ok`;
  // The provider gave up on it and booked it failed: money moved without the provider knowing, perhaps.
  const failed = await reconcile(proxy.base, providerFile('failed.csv', fineRow, `${lost.transaction_id},bet,lost,G1,10,failed`));
  t.equal(failed.code, 0, failed.stderr);
  t.match(
    failed.stdout,
    /1 wallet row\(s\) .* against 2 provider record\(s\): 0 mismatch\(es\), 1 unresolved — they agree on all that could be compared; the 1 unresolved, below, could not be$/m,
  );
  t.match(failed.stdout, /proxy mode: the ledger holds what http:\/\/127\.0\.0\.1:\d+\/callback answered as applied/);
  t.match(
    failed.stdout,
    new RegExp(
      `${lost.transaction_id}: line 3: the provider counts it failed; no reply from the wallet under test \\(journal #\\d+: .*\\): ` +
        "if the wallet's own books applied it, money moved without the provider knowing",
    ),
  );
  // The provider booked it done (a reply it read elsewhere): not "missing in the wallet".
  const ok = await reconcile(proxy.base, providerFile('ok.csv', fineRow, `${lost.transaction_id},bet,lost,G1,10,ok`));
  t.equal(ok.code, 0, ok.stdout);
  t.notMatch(ok.stdout, /MISSING_IN_WALLET/);
  t.match(ok.stdout, /line 3: the provider counts it done; it is not in the ledger: no reply from the wallet under test/);
  t.notMatch(ok.stdout, /TLS port/, 'a wallet that answered over plain HTTP before closed this connection itself: no https hint');
  // No record at all: listed as well.
  const none = await reconcile(proxy.base, providerFile('none.csv', fineRow));
  t.equal(none.code, 0);
  t.match(none.stdout, new RegExp(`${lost.transaction_id}: the provider has no record of it; no reply from the wallet under test`));
});

t.test("a typo in the scenario's credentials: what the wallet applied under the provider's own is not missing", async (t) => {
  const upstream = await startUpstream(t);
  // The provider sends the wallet's real credentials; the scenario's were mistyped.
  const proxy = await startProxy(t, { credentials: { api_id: 'sandbox-typo', api_key: 'sandbox-key' } }, upstream.url);
  const b = bet('p1', 'G1', [['1', 'P', 10]], usd);
  for (const c of [login('p1'), b]) t.equal((await sendCallback(proxy.url, c))?.code, 'R0');
  const ran = await reconcile(proxy.base, providerFile('typo.csv', `${b.transaction_id},bet,p1,G1,10,ok`));
  t.equal(ran.code, 0, ran.stdout);
  t.notMatch(ran.stdout, /MISSING_IN_WALLET/);
  t.match(ran.stdout, /0 wallet row\(s\) .* 0 mismatch\(es\), 1 unresolved/);
  t.match(ran.stdout, /answered R0 to it with other credentials than the scenario's \(journal #\d+: CREDENTIALS_WRONG\)/);
});

t.test('a clean session behind the proxy: they agree, nothing unresolved (no false alarm)', async (t) => {
  const upstream = await startUpstream(t);
  const proxy = await startProxy(t, {}, upstream.url);
  const b = bet('p1', 'G1', [['1', 'P', 10]], usd);
  for (const c of [login('p1'), b]) t.equal((await sendCallback(proxy.url, c))?.code, 'R0');
  const ran = await reconcile(proxy.base, providerFile('clean.csv', `${b.transaction_id},bet,p1,G1,10,ok`));
  t.equal(ran.code, 0);
  t.match(ran.stdout, /1 wallet row\(s\) .* 0 mismatch\(es\), 0 unresolved — they agree/);
  t.notMatch(ran.stdout, /reaches back/, 'the journal reaches back to the first row');
  // The journal cleared (a new grading session): the proxy says how far back it could look.
  await fetch(`${proxy.base}/admin/journal`, { method: 'DELETE' });
  const cleared = await reconcile(proxy.base, providerFile('clean.csv', `${b.transaction_id},bet,p1,G1,10,ok`));
  t.equal(cleared.code, 0);
  t.match(cleared.stdout, /the journal is empty \(DELETE \/admin\/journal, --journal-size\): such a callback of the session is not known/);
});

t.test('why a closed connection got no reply: the https hint only for a wallet that never answered over HTTP', async (t) => {
  const { noReplyOf } = await import('../../src/wallet/upstream-reach.js');
  const reset = Object.assign(new Error('other side closed'), { code: 'ECONNRESET' });
  const url = new URL('http://127.0.0.1:9/callback');
  t.match(noReplyOf(reset, url, 1000, true).why, /try https:\/\//, 'never answered: perhaps a TLS port');
  t.equal(
    noReplyOf(reset, url, 1000, true, true).why,
    'the upstream closed the connection without a reply',
    'answered before: its own doing',
  );
  t.notMatch(noReplyOf(reset, new URL('https://127.0.0.1:9/'), 1000, true).why, /https/, 'already https');
});
