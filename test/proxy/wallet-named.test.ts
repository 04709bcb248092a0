// `wallet-sim report` in front of a proxy, as a real process: the terminal report and the HTML page
// name the wallet under test (the report JSON carries it as `upstream`). The wallet under test is a
// wallet-sim in this process: only its URL matters here (a `start` spawned cost two seconds of CPU).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, listen, login, post } from '../helpers/app.js';
import { run } from '../helpers/spawn-cli.js';
import { startProxy, UPSTREAM_SCENARIO } from './upstream.js';
import { tempDir } from '../helpers/temp.js';

t.test('wallet-sim report names the upstream in its header and in the HTML page', async (t) => {
  const upstream = await buildTestApp(UPSTREAM_SCENARIO);
  t.teardown(() => upstream.app.close());
  const up = { url: `${await listen(upstream.app)}/callback` };
  const proxy = await startProxy(t, {}, up.url);
  await post(proxy.url, login('named'));
  const html = join(tempDir('wallet-sim-named-'), 'report.html');
  const r = await run(['report', '--url', proxy.base, '--html', html]);
  t.equal(r.code, 0, r.stderr);
  const header = r.stdout.split('\n').slice(0, 3).join('\n');
  t.match(header, `wallet under test: ${up.url}`);
  t.match(readFileSync(html, 'utf8'), `Wallet under test <b>${up.url}</b>`);
});

t.test("a typo in the scenario's credentials: the report says so, and fails neither side", async (t) => {
  const upstream = await buildTestApp(UPSTREAM_SCENARIO);
  t.teardown(() => upstream.app.close());
  const up = `${await listen(upstream.app)}/callback`;
  // The provider sends the wallet's real credentials (sandbox-key); the proxy's scenario has a typo.
  const proxy = await startProxy(t, { credentials: { api_id: 'sandbox', api_key: 'sandbox-kye' } }, up);
  for (let i = 0; i < 3; i++) t.equal((await post(proxy.url, login('typo'))).body.code, 'R0', 'the wallet takes its own credentials');
  const r = await run(['report', '--url', proxy.base]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /note: callbacks had \(the provider checks grade none of them\) the caller's errors: CREDENTIALS_WRONG ×3/);
  t.match(
    r.stdout,
    /note: no callback carried the scenario's credentials, so no provider check graded any: .*the scenario's credentials are wrong/,
  );
  t.notMatch(r.stdout, /FAIL\s+WALLET_REFUSES_INVALID/, 'the wallet is not blamed for the scenario');
  t.match(r.stdout, /3 R0s to credentials other than the scenario's \(Api-Id sandbox\) not judged/);
});
