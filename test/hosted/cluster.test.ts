// docs/hosted.md, "Several processes on Redis", on a Redis Cluster (--redis-cluster): two hosted
// wallet-sims on a local three-master cluster serve every tenant, hold --tenant-players, and sweep
// a deleted tenant's keys from every master; a registry an older wallet-sim wrote is refused.
import t from 'tap';
import { startSimulator } from '../../src/app/start-simulator.js';
import { countKeys } from '../../src/backends/redis/cluster.js';
import { CLUSTER_SCHEME } from '../../src/backends/redis/defaults.js';
import { RedisStore } from '../../src/backends/redis/redis-store.js';
import { bet } from '../helpers/app.js';
import { eventually } from '../helpers/spawn-cli.js';
import { uniquePrefix } from '../helpers/redis.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';
import { asHost, bearer, callbackHeaders, type Created, HOST_TOKEN, loginOf, SMALL } from '../helpers/hosted.js';

const cluster = await clusterOrSkip(t);
if (cluster) {
  const prefix = uniquePrefix('hosted-cluster');
  const options = {
    hosted: true as const,
    hostToken: HOST_TOKEN,
    store: 'redis' as const,
    redisCluster: cluster.nodes,
    redisPrefix: prefix,
  };
  const hosts = [];
  for (let i = 0; i < 2; i++) {
    const host = await startSimulator({ ...options, tenantPlayers: 3, redisTimeoutMs: 10_000 });
    t.teardown(() => host.close());
    hosts.push(host);
  }
  const [a, b] = hosts.map((h) => h.url) as [string, string];
  const admin = (await RedisStore.connect(`${CLUSTER_SCHEME}${cluster.nodes}`)).client;
  t.teardown(() => admin.disconnect());

  const json = async (res: Response) => ({ status: res.status, body: (await res.json().catch(() => undefined)) as any });
  const create = async (base: string, name: string): Promise<Created> => {
    const res = await json(
      await fetch(`${base}/tenants`, {
        method: 'POST',
        headers: { ...asHost, 'content-type': 'application/json' },
        body: JSON.stringify({ name, scenario: SMALL }),
      }),
    );
    if (res.status !== 201) throw new Error(`POST /tenants: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Created;
  };
  const callback = (base: string, tenant: Created, body: object) =>
    fetch(`${base}/t/${tenant.id}/callback`, { method: 'POST', headers: callbackHeaders(tenant), body: JSON.stringify(body) }).then(json);
  const get = (base: string, path: string, token: string) => fetch(`${base}${path}`, { headers: bearer(token) }).then(json);

  t.test('a tenant created on one process is served by the other; --tenant-players holds; a deleted tenant leaves no key', async (t) => {
    const x = await create(a, 'Acme');
    t.equal((await callback(b, x, loginOf('alice'))).body.code, 'R0', "x's callback served by B");
    const placed = await callback(a, x, bet('alice', 'G1', [['1', 'P', 10]], { currency: 'USD' }));
    t.match(placed.body, { code: 'R0', latest_balance: 90 }, "x's bet served by A");
    t.equal((await get(b, `/t/${x.id}/admin/players/alice`, x.token)).body.balance, 90, 'one ledger');

    // Of seven new players racing on both processes, the bound (3, alice one of them) lets two in.
    const users = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
    const codes = (await Promise.all(users.map((u, i) => callback(i % 2 ? a : b, x, loginOf(u))))).map((r) => r.body.code as string);
    const admitted = codes.filter((c) => c === 'R0').length;
    t.equal(admitted, 2, `two players in (${codes.join(' ')})`);
    t.equal(codes.filter((c) => c === 'R3').length, users.length - admitted, 'the others refused with the protocol code');
    const players = (await get(a, `/t/${x.id}/admin/players`, x.token)).body as unknown[];
    t.equal(players.length, 1 + admitted, 'nothing created for the refused');
    t.equal((await callback(a, x, loginOf('p8'))).body.code, 'R3', 'and once full, a newcomer is refused');

    const base = `${prefix}t:${x.id}:`;
    t.ok((await countKeys(admin, `${base}*`)) > 0, "x's keys are under its prefix, on the cluster's masters");
    t.equal((await fetch(`${b}/tenants/${x.id}`, { method: 'DELETE', headers: asHost })).status, 204);
    t.equal((await callback(b, x, loginOf('alice'))).status, 404, 'refused at once by the process that deleted it');
    t.ok(await eventually(async () => (await callback(a, x, loginOf('alice'))).status === 404, 10_000), 'and by the other');
    t.ok(await eventually(async () => (await countKeys(admin, `${base}*`)) === 0, 10_000), 'its keys swept from every master');
  });

  t.test('a tenant registry an older wallet-sim wrote is refused, naming its keys and the fix', async (t) => {
    const older = uniquePrefix('older-registry');
    await admin.hset(`${older}tenants`, 'abc', '{}');
    const started = startSimulator({ ...options, redisPrefix: older });
    await t.rejects(started, { message: new RegExp(`older wallet-sim wrote under "${older}tenants".*rename`) });
    await Promise.resolve(started.then((h) => h.close())).catch(() => undefined);
  });
}
