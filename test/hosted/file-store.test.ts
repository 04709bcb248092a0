// Hosted mode on the file store: the tenants (ids, names, token digests, credentials, scenario)
// and each tenant's wallet survive a restart, a kill -9 included; a 201 is on disk when answered.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import t from 'tap';
import { bet } from '../helpers/app.js';
import { start } from '../helpers/spawn-cli.js';
import { asHost, bearer, callbackHeaders, type Created, HOST_TOKEN, loginOf } from '../helpers/hosted.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-hosted-file-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const tokenFile = join(dir, 'host-token');
writeFileSync(tokenFile, `${HOST_TOKEN}\n`);
const data = join(dir, 'data');
const args = ['--hosted', '--host-token-file', tokenFile, '--store', 'file', '--data', data, '--port', '0', '--log-level', 'warn'];

const json = async (res: Response) => ({ status: res.status, body: (await res.json().catch(() => undefined)) as any });

t.test('tenants and their wallets survive a kill -9 and a restart', async (t) => {
  const first = await start(t, args);
  const created = await json(
    await fetch(`${first.url}/tenants`, {
      method: 'POST',
      headers: { ...asHost, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Acme' }),
    }),
  );
  t.equal(created.status, 201);
  const a = created.body as Created;
  const callback = (base: string, body: object) =>
    fetch(`${base}/t/${a.id}/callback`, { method: 'POST', headers: callbackHeaders(a), body: JSON.stringify(body) }).then(json);
  t.equal((await callback(first.url, loginOf('alice'))).body.code, 'R0');
  const wager = bet('alice', 'G1', [['1', 'P', 100]], { currency: 'USD' });
  const placed = await callback(first.url, wager);
  t.equal(placed.body.code, 'R0');
  const balance = placed.body.latest_balance as number;
  first.child.kill('SIGKILL'); // no shutdown: only what was on disk when answered survives
  await once(first.child, 'close');

  const key = join(dir, 'signing.pem');
  writeFileSync(key, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const second = await start(t, [...args, '--signing-key', key]);
  t.match(second.stdout(), /1 tenant, store file/);
  t.match(second.stderr(), /signing reports \(GET \/t\/<id>\/admin\/report\?signed=true, each naming its tenant\) with the Ed25519 key/);
  const listed = await json(await fetch(`${second.url}/tenants`, { headers: asHost }));
  t.match(listed.body, [{ id: a.id, name: 'Acme' }]);
  const player = await json(await fetch(`${second.url}/t/${a.id}/admin/players/alice`, { headers: bearer(a.token) }));
  t.equal(player.status, 200, 'the old token still opens it (its digest was kept)');
  t.equal(player.body.balance, balance, 'the balance after the bet');
  const again = await callback(second.url, wager);
  t.equal(again.body.code, 'R0');
  t.equal(again.body.latest_balance, balance, 'the resent bet replays: never debited twice');

  const deleted = await fetch(`${second.url}/tenants/${a.id}`, { method: 'DELETE', headers: asHost });
  t.equal(deleted.status, 204);
  t.notOk(existsSync(join(data, 'tenants', a.id)), "a deleted tenant's files are gone");
  await second.stop();

  const third = await start(t, [...args, '--allow-private-targets']);
  const warned = "warning: --allow-private-targets: a tenant's probe may call this host's own networks";
  for (let i = 0; i < 200 && !third.stderr().includes(warned); i++) await new Promise((r) => setTimeout(r, 50)); // stderr is its own pipe
  t.match(third.stderr(), warned);
  t.notMatch(second.stderr(), 'allow-private-targets', 'said only when given');
  t.same((await json(await fetch(`${third.url}/tenants`, { headers: asHost }))).body, [], 'and it stays deleted');
  await third.stop();
});

t.test('--hosted --store file without --data: nothing starts, the message says what to give', async (t) => {
  await t.rejects(start(t, ['--hosted', '--host-token-file', tokenFile, '--store', 'file', '--port', '0']), /needs --data <dir>/);
});
