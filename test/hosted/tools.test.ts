// The operator's and the integrator's tools against a hosted wallet-sim: the Node API's host
// (startSimulator({ hosted: true })), `wallet-sim tenant`, report --signed with a tenant's
// --url and --token-file, and verify-report naming the tenant (--tenant).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSimulator } from '../../src/index.js';
import { run } from '../helpers/spawn-cli.js';
import { closedPort } from '../helpers/net.js';
import { callbackHeaders, HOST_TOKEN, loginOf } from '../helpers/hosted.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-hosted-tools-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

t.test('an operator hosts, integrators certify, each signed report names its tenant', async (t) => {
  const pair = generateKeyPairSync('ed25519');
  writeFileSync(at('pub.pem'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(at('host-token'), `${HOST_TOKEN}\n`);
  const host = await startSimulator({ hosted: true, hostToken: HOST_TOKEN, signingKey: pair.privateKey });
  t.teardown(() => host.close());

  const acme = await host.createTenant({ name: 'Acme "Games"\u00e9' });
  const bravo = await host.createTenant({ name: 'Bravo' });
  t.equal(acme.callback_url, `${host.url}/t/${acme.id}/callback`);
  const reply = await fetch(acme.callback_url, { method: 'POST', headers: callbackHeaders(acme), body: JSON.stringify(loginOf('alice')) });
  t.equal(((await reply.json()) as { code: string }).code, 'R0');
  t.match(await host.tenants(), [
    { id: acme.id, callbacks: 1 },
    { id: bravo.id, callbacks: 0 },
  ]);

  writeFileSync(at('acme-token'), `${acme.token}\n`);
  writeFileSync(at('bravo-token'), bravo.token);
  const signed = await run(['report', '--url', `${host.url}/t/${acme.id}`, '--token-file', at('acme-token'), '--signed', at('acme.json')]);
  t.equal(signed.code, 0, signed.stderr);

  const verified = await run(['verify-report', at('acme.json'), '--public-key', at('pub.pem'), '--tenant', acme.id]);
  t.equal(verified.code, 0, verified.stderr);
  t.match(verified.stdout, `tenant: ${acme.id} ("Acme "Games"é")`, 'verify-report prints the tenant');
  const passedOff = await run(['verify-report', at('acme.json'), '--public-key', at('pub.pem'), '--tenant', bravo.id]);
  t.equal(passedOff.code, 1, "another tenant's report: exit 1");
  t.match(passedOff.stderr, `NOT VALID: the report is tenant ${acme.id}'s`);

  const crossed = await run(['report', '--url', `${host.url}/t/${acme.id}`, '--token-file', at('bravo-token')]);
  t.equal(crossed.code, 2, "another tenant's token cannot read it");
  t.match(crossed.stderr, /403/);

  const listed = await run(['tenant', 'list', '--url', host.url, '--host-token-file', at('host-token')]);
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, acme.id);
  t.match(listed.stdout, '"Bravo"');
  const created = await run(['tenant', 'create', '--url', host.url, '--host-token-file', at('host-token'), '--name', 'Charlie', '--json']);
  t.equal(created.code, 0, created.stderr);
  const charlie = JSON.parse(created.stdout) as { id: string; token: string };
  const rotated = await run(['tenant', 'rotate', charlie.id, '--url', host.url, '--host-token-file', at('host-token')]);
  t.equal(rotated.code, 0, rotated.stderr);
  t.match(rotated.stdout, /token: +wst_/);
  const refused = await run(['tenant', 'list', '--url', host.url, '--host-token-file', at('acme-token')]);
  t.equal(refused.code, 1, "a tenant's token is no host token");
  t.match(refused.stderr, /HTTP 401: .*host token/);
  const deleted = await run(['tenant', 'delete', charlie.id, '--url', host.url, '--host-token-file', at('host-token')]);
  t.equal(deleted.code, 0, deleted.stderr);
  await host.deleteTenant(bravo.id);
  t.same(
    (await host.tenants()).map((x) => x.id),
    [acme.id],
  );
});

t.test('startSimulator({ hosted: true }) refuses a short host token, saying what to do', async (t) => {
  await t.rejects(startSimulator({ hosted: true, hostToken: 'short' }), { name: 'StartFailure', message: /fewer than 32.*openssl rand/ });
  // In the API's words (it said --host-token-file and WALLET_SIM_HOST_TOKEN, which the API does not read).
  const none = await startSimulator({ hosted: true }).catch((e: Error) => e);
  t.match(none, {
    message:
      /^wallet-sim: startSimulator\(\{ hosted: true \}\) needs a host token: the `hostToken` option .* or the `hostTokenFile` option/,
  });
  t.notMatch((none as Error).message, /--host-token|WALLET_SIM_/);
  await t.rejects(startSimulator({ hosted: true, hostTokenFile: '/nonexistent/host-token' }), {
    message: /^wallet-sim: the `hostTokenFile` option: \/nonexistent\/host-token: ENOENT: give a readable file/,
  });
});

t.test("startSimulator({ hosted: true }) takes the CLI's probe options: allowPrivateTargets, tenantProbeRuns", async (t) => {
  const host = await startSimulator({ hosted: true, hostToken: HOST_TOKEN, allowPrivateTargets: true, tenantProbeRuns: 1 });
  t.teardown(() => host.close());
  const acme = await host.createTenant({ name: 'Acme' });
  // A loopback port nothing listens on: refused without allowPrivateTargets, probed (and found unreachable) with it.
  const body = JSON.stringify({ url: `http://127.0.0.1:${await closedPort()}/callback`, api_id: 'a', api_key: 'k', user: 'usd' });
  const probe = () =>
    fetch(`${host.url}/t/${acme.id}/probe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' },
      body,
    });
  const first = await probe();
  t.equal(first.status, 202, 'a loopback target is probed');
  const { run } = (await first.json()) as { run: string };
  for (let state = 'running'; state === 'running'; await new Promise((resolve) => setTimeout(resolve, 100)))
    state = (
      (await (await fetch(`${host.url}/t/${acme.id}/probe/${run}`, { headers: { authorization: `Bearer ${acme.token}` } })).json()) as {
        state: string;
      }
    ).state;
  const second = await probe();
  t.equal(second.status, 429, 'one run an hour');
  t.ok(second.headers.get('retry-after'));
});
