// `wallet-sim report` in front of a proxy, as a real process: the terminal report and the HTML page
// name the wallet under test (the report JSON carries it as `upstream`). The wallet under test is a
// wallet-sim in this process: only its URL matters here (a `start` spawned cost two seconds of CPU).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, listen, login, post } from '../helpers/app.js';
import { run } from '../helpers/spawn-cli.js';
import { startProxy, UPSTREAM_SCENARIO } from './upstream.js';

t.test('wallet-sim report names the upstream in its header and in the HTML page', async (t) => {
  const upstream = await buildTestApp(UPSTREAM_SCENARIO);
  t.teardown(() => upstream.app.close());
  const up = { url: `${await listen(upstream.app)}/callback` };
  const proxy = await startProxy(t, {}, up.url);
  await post(proxy.url, login('named'));
  const html = join(mkdtempSync(join(tmpdir(), 'wallet-sim-named-')), 'report.html');
  const r = await run(['report', '--url', proxy.base, '--html', html]);
  t.equal(r.code, 0, r.stderr);
  const header = r.stdout.split('\n').slice(0, 3).join('\n');
  t.match(header, `wallet under test: ${up.url}`);
  t.match(readFileSync(html, 'utf8'), `Wallet under test <b>${up.url}</b>`);
});
