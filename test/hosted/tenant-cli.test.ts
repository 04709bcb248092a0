// What a newcomer meets running the CLI against a hosted wallet-sim: `tenant create|rotate
// --token-file`, a tenant's URL given to `tenant`, `send` on a tenant's callback URL (its scenario
// read with --token-file, else one line naming the defaults used and why), the game_no of a bet,
// and a refused token said as such. One host on a real socket; each command's action runs in this
// process (test/helpers/run-here.ts): a spawn costs 0.3 s of CPU.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSimulator } from '../../src/index.js';
import { reconcileCommand } from '../../src/commands/reconcile.js';
import { reportCommand } from '../../src/commands/report.js';
import { sendCommand } from '../../src/commands/send.js';
import { tailCommand } from '../../src/commands/tail.js';
import { tenantCommand } from '../../src/commands/tenant.js';
import { runHere } from '../helpers/run-here.js';
import { HOST_TOKEN, SMALL } from '../helpers/hosted.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-tenant-cli-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);
writeFileSync(at('host-token'), `${HOST_TOKEN}\n`);

const host = await startSimulator({ hosted: true, hostToken: HOST_TOKEN });
t.teardown(() => host.close());
const hostArgs = ['--url', host.url, '--host-token-file', at('host-token')];
const tenant = (...args: string[]) => runHere(tenantCommand(), args);

t.test('tenant create and rotate --token-file: the token in a new 0600 file, never over one', async (t) => {
  const created = await tenant('create', ...hostArgs, '--name', 'Acme', '--token-file', at('acme-token'));
  t.equal(created.code, 0, created.stderr);
  const id = /^tenant (\S+) /.exec(created.stdout)?.[1] ?? '';
  const token = readFileSync(at('acme-token'), 'utf8');
  t.match(token, /^wst_\S+\n$/, 'the token, one line');
  t.equal(statSync(at('acme-token')).mode & 0o777, 0o600, 'mode 0600');
  t.match(created.stdout, `token:        written to ${at('acme-token')} (mode 0600), not shown`);
  t.match(created.stdout, /callback URL: .*\/t\/.*\/callback\n +Api-Id: +\S+\n +Api-Key: +\S+\n +dashboard: /, 'the rest printed');
  t.notMatch(created.stdout, token.trim(), 'the token is not on the screen');
  const listed = await tenant('list', ...hostArgs);
  t.match(listed.stdout, new RegExp(`^${id} +NOT_EXERCISED +0 callbacks  last request never  "Acme"$`, 'm'), listed.stdout);

  const before = (await host.tenants()).length;
  const again = await tenant('create', ...hostArgs, '--name', 'Acme 2', '--token-file', at('acme-token'));
  t.equal(again.code, 2);
  t.match(again.stderr, `--token-file ${at('acme-token')} exists: remove it or give another path (no token was issued)`);
  t.equal((await host.tenants()).length, before, 'no tenant created');
  t.equal(readFileSync(at('acme-token'), 'utf8'), token, 'the file kept');

  const refusedRotate = await tenant('rotate', id, ...hostArgs, '--token-file', at('acme-token'));
  t.equal(refusedRotate.code, 2);
  t.match(refusedRotate.stderr, 'exists: remove it or give another path');
  const read = await runHere(reportCommand(), ['--url', `${host.url}/t/${id}`, '--token-file', at('acme-token')]);
  t.equal(read.code, 0, `the token still works: not rotated (${read.stderr})`);

  const rotated = await tenant('rotate', id, ...hostArgs, '--token-file', at('acme-token-2'), '--json');
  t.equal(rotated.code, 0, rotated.stderr);
  const json = JSON.parse(rotated.stdout) as { id: string; token?: string; token_file: string };
  t.same([json.id, json.token, json.token_file], [id, undefined, at('acme-token-2')], '--json: token_file instead of the token');
  t.not(readFileSync(at('acme-token-2'), 'utf8'), token, 'a new token');
  t.equal(statSync(at('acme-token-2')).mode & 0o777, 0o600);
});

t.test("tenant commands given a tenant's URL ask for the host's base URL", async (t) => {
  for (const url of [`${host.url}/t/abc`, `${host.url}/t/abc/callback`]) {
    const r = await tenant('list', '--url', url, '--host-token-file', at('host-token'));
    t.equal(r.code, 2, url);
    t.match(r.stderr, `--url ${url} is a tenant's URL: give the host's base URL (e.g. ${host.url}), not a tenant's (/t/<id>)`);
  }
  const created = await tenant(
    'create',
    '--url',
    `${host.url}/t/x/`,
    '--host-token-file',
    at('host-token'),
    '--name',
    'N',
    '--token-file',
    at('n'),
  );
  t.equal(created.code, 2);
  t.notOk(existsSync(at('n')), 'nothing written');
});

t.test("send on a tenant's callback URL: its scenario with --token-file, else the defaults said with why", async (t) => {
  const acme = await host.createTenant({ name: 'Send', scenario: { ...SMALL, players: [], rules: [] } });
  writeFileSync(at('send-token'), acme.token);
  const creds = ['--api-id', acme.credentials.api_id, '--api-key', acme.credentials.api_key];
  const send = (...args: string[]) => runHere(sendCommand(), [...args, '--url', acme.callback_url, ...creds, '--amount', '5']);

  const blind = await send('login');
  const scenarioUrl = `${host.url}/t/${acme.id}/admin/scenario`;
  t.match(
    blind.stderr,
    `wallet-sim send: player player-1: send's own defaults, not the scenario's (GET ${scenarioUrl} answered 401: ` +
      "it wants a token); pass --user, or --token-file <the tenant's token file> to read the scenario",
  );
  t.notMatch(blind.stderr, 'currency', 'a login carries no currency');
  const named = await send('login', '--user', 'bob');
  t.notMatch(named.stderr, /wallet-sim send: (player|currency)/, 'player and credentials given: nothing taken from defaults');
  const keyless = await runHere(sendCommand(), ['login', '--url', acme.callback_url, '--user', 'bob']);
  t.match(
    keyless.stderr,
    /wallet-sim send: Api-Id and key: send's own defaults, not the scenario's \(GET .* answered 401: it wants a token\); pass --api-id and --api-key, or --token-file/,
  );
  t.equal(keyless.code, 1, "the sandbox's own credentials are not the tenant's: R2");

  const seeing = await send('bet', '--token-file', at('send-token'));
  t.match(seeing.stderr, `player player-1 (USD) from the simulator's scenario "small"`);
  t.equal(seeing.code, 0, "R0: the scenario's currency");
  const game = /wallet-sim send: game_no (\S+)\n[^]*wallet-sim send: settle round \1: send bet_result .* --game \1 --winloss/.exec(
    seeing.stderr,
  )?.[1];
  t.ok(game, `a bet's game_no is said (${seeing.stderr})`);
  t.match(seeing.stdout, `"game_no": "${game}"`, 'the one sent');
  const settled = await send('bet_result', '--token-file', at('send-token'), '--game', game!);
  t.equal(settled.code, 0, 'the round settled');
  t.notMatch(settled.stderr, 'game_no', 'bet_result names no new round');
  const own = await runHere(sendCommand(), ['login', '--url', acme.callback_url, '--token-file', at('send-token')]);
  t.equal(own.code, 0, "no --api-id/--api-key: the tenant's own credentials, read with its scenario");
  t.match(own.stderr, `Api-Id ${acme.credentials.api_id} and its key from the simulator's scenario "small"`);

  writeFileSync(at('wrong-token'), 'wst_wrong');
  const wrong = await send('login', '--token-file', at('wrong-token'));
  t.match(
    wrong.stderr,
    /answered 401, the token given \(--token-file or --admin-token\) was refused: it is wrong, or it was rotated since \(ask whoever runs this wallet-sim for the current one\)\); pass --user\n/,
  );
});

t.test('a refused token is said as such, with no "is wallet-sim running?" after a server answered', async (t) => {
  const [acme, bravo] = [await host.createTenant({ name: 'A' }), await host.createTenant({ name: 'B' })];
  writeFileSync(at('bad-token'), 'wst_not-a-token');
  writeFileSync(at('bravo-token'), bravo.token);
  const report = (...args: string[]) => runHere(reportCommand(), ['--url', `${host.url}/t/${acme.id}`, ...args]);

  const bad = await report('--token-file', at('bad-token'));
  t.equal(bad.code, 2);
  t.match(bad.stderr, /401, the token given \(--token-file or --admin-token\) was refused: it is wrong, or it was rotated since/);
  const other = await report('--token-file', at('bravo-token'));
  t.match(
    other.stderr,
    /403, the token given \(--token-file or --admin-token\) was refused: this token is not the token of the tenant the URL names: check the tenant id in the URL/,
  );
  const none = await report();
  t.match(none.stderr, /401, the admin API is locked: pass --admin-token/, 'no token: the admin API is locked');
  const unknown = await runHere(reportCommand(), ['--url', `${host.url}/t/nobody`, '--admin-token', HOST_TOKEN]);
  t.match(unknown.stderr, /404/);
  const ledger = await runHere(reconcileCommand(), [
    '--url',
    `${host.url}/t/${acme.id}`,
    '--token-file',
    at('bad-token'),
    '--provider',
    'x.csv',
  ]);
  t.match(ledger.stderr, /cannot read the ledger: .*401, the token given \(--token-file or --admin-token\) was refused/);
  for (const r of [bad, other, none, unknown, ledger]) t.notMatch(r.stderr, 'is wallet-sim running', 'a server answered');

  const tail = await runHere(tailCommand(), ['--url', `${host.url}/t/${acme.id}`, '--token-file', at('bad-token')]);
  t.equal(tail.code, 2);
  t.match(tail.stderr, /answered 401, the token given \(--token-file or --admin-token\) was refused: it is wrong, or it was rotated/);
  t.notMatch(tail.stderr, 'is wallet-sim running');
});

t.test('tenant create --scenario: a file saved with a byte-order mark is sent as its JSON', async (t) => {
  writeFileSync(at('bom.json'), `\uFEFF${JSON.stringify({ ...SMALL, name: 'with a mark' })}`);
  const created = await tenant('create', ...hostArgs, '--name', 'Bom', '--scenario', at('bom.json'), '--json');
  t.equal(created.code, 0, created.stderr);
  const { id, token } = JSON.parse(created.stdout) as { id: string; token: string };
  const scenario = await fetch(`${host.url}/t/${id}/admin/scenario`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(((await scenario.json()) as { name: string }).name, 'with a mark', "the tenant plays the file's scenario");
  t.match(created.stderr, "the scenario's credentials are not used: a tenant's are generated (the Api-Id and Api-Key above)");
  const bundled = await tenant('create', ...hostArgs, '--name', 'Bundled', '--scenario', 'certification');
  t.equal(bundled.code, 0, bundled.stderr);
  t.notMatch(bundled.stderr, 'credentials', "a bundled scenario's name: nothing to say");
});
