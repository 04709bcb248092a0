// What `wallet-sim report` points to for more (the journal, the rest of a check's violations) is
// the admin API it read the report from: a hosted tenant's /t/<id>/admin, not the host's /admin.
import t from 'tap';
import { startSimulator } from '../../src/index.js';
import { reportCommand } from '../../src/commands/report.js';
import { runHere } from '../helpers/run-here.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callbackHeaders, HOST_TOKEN, loginOf } from '../helpers/hosted.js';

t.test("a tenant's report names the tenant's journal", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-report-paths-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const host = await startSimulator({ hosted: true, hostToken: HOST_TOKEN });
  t.teardown(() => host.close());
  const acme = await host.createTenant({ name: 'Acme' });
  // No Callback-URL header: a finding of that one callback (CALLBACK_URL_MISSING), listed at the report's end.
  const { 'callback-url': _dropped, ...headers } = callbackHeaders(acme);
  const reply = await fetch(acme.callback_url, { method: 'POST', headers, body: JSON.stringify(loginOf('alice')) });
  t.equal(((await reply.json()) as { code: string }).code, 'R0');
  const token = join(dir, 'token');
  writeFileSync(token, acme.token);
  const r = await runHere(reportCommand(), ['--url', `${host.url}/t/${acme.id}`, '--token-file', token]);
  t.match(r.stdout, `findings in single callbacks: CALLBACK_URL_MISSING ×1 (GET /t/${acme.id}/admin/journal)`);
});

t.test("the host's token and a tenant id that does not exist: the server's reason, not a guess about the callback path", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-report-paths-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const host = await startSimulator({ hosted: true, hostToken: HOST_TOKEN });
  t.teardown(() => host.close());
  const token = join(dir, 'host-token');
  writeFileSync(token, HOST_TOKEN);
  const r = await runHere(reportCommand(), ['--url', `${host.url}/t/nosuchtenant`, '--token-file', token]);
  t.equal(r.code, 2);
  t.match(r.stderr, 'HTTP 404; no tenant nosuchtenant on this host: check the URL the host gave you');
  t.notMatch(r.stderr, 'not the callback path');
});
