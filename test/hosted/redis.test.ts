// docs/hosted.md, "Several processes on Redis": two hosted wallet-sims (two hosts in this process,
// each with its own connections) on one redis-server serve every tenant, keep each tenant's keys
// under its prefix, and hold two connections each however many tenants there are.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Redis } from 'ioredis';
import { startSimulator } from '../../src/app/start-simulator.js';
import { bet } from '../helpers/app.js';
import { eventually } from '../helpers/spawn-cli.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { asHost, bearer, callbackHeaders, type Created, HOST_TOKEN, loginOf, SMALL } from '../helpers/hosted.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';

const redis = await redisOrSkip(t);
/** Nothing here tests Redis's time-out: a loaded machine's slow first reply must not fail a start. */
const LOADED = { redisTimeoutMs: 10_000 };
if (redis) {
  const prefix = uniquePrefix('hosted');
  const hosts = [];
  for (let i = 0; i < 2; i++) {
    const host = await startSimulator({
      hosted: true,
      hostToken: HOST_TOKEN,
      store: 'redis',
      redisUrl: redis.url,
      redisPrefix: prefix,
      ...LOADED,
    });
    t.teardown(() => host.close());
    hosts.push(host);
  }
  const [a, b] = hosts.map((h) => h.url) as [string, string];
  const admin = new Redis(redis.url);
  t.teardown(() => admin.disconnect());

  const json = async (res: Response) => ({ status: res.status, body: (await res.json().catch(() => undefined)) as any });
  const create = async (base: string, name: string, scenario?: object): Promise<Created> => {
    const res = await json(
      await fetch(`${base}/tenants`, {
        method: 'POST',
        headers: { ...asHost, 'content-type': 'application/json' },
        body: JSON.stringify({ name, scenario }),
      }),
    );
    if (res.status !== 201) throw new Error(`POST /tenants: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Created;
  };
  const callback = (base: string, tenant: Created, body: object) =>
    fetch(`${base}/t/${tenant.id}/callback`, { method: 'POST', headers: callbackHeaders(tenant), body: JSON.stringify(body) }).then(json);
  const get = (base: string, path: string, token: string) => fetch(`${base}${path}`, { headers: bearer(token) }).then(json);
  const journalOf = async (base: string, tenant: Created) =>
    ((await get(base, `/t/${tenant.id}/admin/journal`, tenant.token)).body.entries as { user_id: string }[]).map((e) => e.user_id);
  /** Every key under the prefix (SCAN). */
  const keys = async (match = `${prefix}*`) => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await admin.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return found;
  };
  const connections = async () => ((await admin.client('LIST')) as string).trim().split('\n').length;

  t.test('a tenant created on one process is served by the other, and two tenants see only their own traffic', async (t) => {
    const x = await create(a, 'Acme');
    const y = await create(b, 'Bravo');
    // At once, on the other process: its first request finds the tenant in Redis.
    t.equal((await callback(b, x, loginOf('alice'))).body.code, 'R0', "x's callback served by B");
    const placed = await callback(a, x, bet('alice', 'G1', [['1', 'P', 100]], { currency: 'USD' }));
    t.equal(placed.body.code, 'R0', "x's bet served by A");
    t.equal((await callback(a, y, loginOf('bob'))).body.code, 'R0', "y's callback served by A");
    t.equal((await callback(b, y, loginOf('mallory'))).body.code, 'R0');

    for (const base of [a, b]) {
      t.same(await journalOf(base, x), ['alice', 'alice'], "x's journal: both processes' callbacks, nothing of y's");
      t.same(await journalOf(base, y), ['bob', 'mallory'], "y's journal: nothing of x's");
      t.equal((await get(base, `/t/${x.id}/admin/players/alice`, x.token)).body.balance, placed.body.latest_balance, 'one ledger');
      t.equal((await get(base, `/t/${y.id}/admin/players/alice`, y.token)).status, 404, "x's player is not y's");
      t.equal((await get(base, `/t/${x.id}/admin/journal`, y.token)).status, 403, "y's token opens nothing of x");
    }
    // A tenant's callback on a warm player is one script, as a single-tenant one is (docs/scale-out.md).
    const scripts = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec((await admin.info('commandstats')) as string)?.[1] ?? 0);
    const before = await scripts();
    t.equal((await callback(a, x, bet('alice', 'G2', [['1', 'P', 1]], { currency: 'USD' }))).body.code, 'R0');
    t.equal((await scripts()) - before, 1, "one EVALSHA for a tenant's bet: commit, journal entry and grading event");
    // Each process counts the callbacks it answered, those its commit script journalled included.
    const metrics = async (base: string) => (await fetch(`${base}/metrics`, { headers: asHost })).text();
    t.match(await metrics(a), `wallet_sim_callbacks_total{tenant="${x.id}",event="bet",code="R0"} 2`, "A counts x's bets");
    t.match(await metrics(b), `wallet_sim_callbacks_total{tenant="${x.id}",event="login",code="R0"} 1`, "B counts x's login");
    const reports = await Promise.all([a, b].map((base) => get(base, `/t/${x.id}/admin/report`, x.token)));
    const exercised = (r: { body: { checks: { status: string }[] } }) => r.body.checks.filter((c) => c.status !== 'not_exercised').length;
    t.ok(exercised(reports[0]!) > 0, "x's report graded its callbacks");
    t.equal(exercised(reports[0]!), exercised(reports[1]!), 'the same grading on both processes');

    // A rotation on A: the new token opens x on B at once, the old one stops within the documented bound.
    const rotated = await json(await fetch(`${a}/tenants/${x.id}/token`, { method: 'POST', headers: asHost }));
    t.equal(rotated.status, 200);
    t.equal((await get(b, `/t/${x.id}/admin/players`, rotated.body.token)).status, 200, 'the new token on B');
    t.ok(
      await eventually(async () => (await get(b, `/t/${x.id}/admin/players`, x.token)).status === 401, 5000),
      'the old token refused on B',
    );
  });

  t.test("a tenant's scenario change and reset on one process reach the other: a times-1 rule fires once across both", async (t) => {
    const once = { ...SMALL, rules: [{ name: 'once', when: { event_type: 'login' }, then: { code: 'R1' }, times: 1 }] };
    const x = await create(a, 'Once', once);
    t.equal((await get(b, `/t/${x.id}/admin/scenario`, x.token)).body.name, 'small', 'B serves the tenant before the change');
    const put = await fetch(`${a}/t/${x.id}/admin/scenario`, {
      method: 'PUT',
      headers: { ...bearer(x.token), 'content-type': 'application/json' },
      body: JSON.stringify({ ...once, name: 'renamed' }),
    });
    t.equal(put.status, 200);
    await eventually(async () => (await get(b, `/t/${x.id}/admin/scenario`, x.token)).body.name === 'renamed', 5_000);
    t.pass('the other process serves the new scenario');
    const codes = async () => {
      const out: string[] = [];
      for (const base of [b, a, b, a]) out.push((await callback(base, x, loginOf('alice'))).body.code);
      return out.sort();
    };
    t.same(await codes(), ['R0', 'R0', 'R0', 'R1'], 'the rule fired once across both processes');
    t.equal((await fetch(`${a}/t/${x.id}/admin/reset`, { method: 'POST', headers: bearer(x.token) })).status, 200);
    // The reset's word reaches B (its rule counters start again with A's): once more, once in all.
    await eventually(async () => (await get(b, `/t/${x.id}/admin/journal`, x.token)).body.entries.length === 0, 5_000);
    t.same(await codes(), ['R0', 'R0', 'R0', 'R1'], 'after the reset, once more across both');
  });

  t.test('every key of a tenant is under its prefix; a deleted tenant is refused on both and its keys go', async (t) => {
    const z = await create(a, 'Zulu');
    t.equal((await callback(b, z, loginOf('carol'))).body.code, 'R0');
    const base = `${prefix}t:${z.id}:`;
    const registry = new Set([`${prefix}{tenants}`, `${prefix}{tenants}:tokens`, `${prefix}{tenants}:version`]);
    const strays = (await keys()).filter((k) => !registry.has(k) && !/^t:[\w-]+:/.test(k.slice(prefix.length)));
    t.same(strays, [], 'every key is the registry or under a tenant prefix');
    t.ok((await keys(`${base}*`)).length > 0, "z's keys are under its prefix");

    const deleted = await fetch(`${b}/tenants/${z.id}`, { method: 'DELETE', headers: asHost });
    t.equal(deleted.status, 204);
    const refused = async (host: string) =>
      (await callback(host, z, loginOf('carol'))).status === 404 && (await get(host, `/t/${z.id}/admin/players`, z.token)).status === 401;
    t.ok(await refused(b), 'refused at once by the process that deleted it');
    t.ok(await eventually(() => refused(a), 5000), 'refused by the other within the bound');
    t.ok(await eventually(async () => (await keys(`${base}*`)).length === 0, 5000), "z's keys are gone");
  });

  t.test('DELETE of a tenant another process deleted a moment before: 404, and this process forgets it too', async (t) => {
    const y = await create(a, 'Yankee');
    t.equal((await callback(a, y, loginOf('dave'))).body.code, 'R0');
    // Deleted elsewhere, before word of it reaches a (as between another process's deletion and its notice).
    const record = JSON.parse((await admin.hget(`${prefix}{tenants}`, y.id))!) as { token_sha256: string };
    await admin.multi().hdel(`${prefix}{tenants}`, y.id).hdel(`${prefix}{tenants}:tokens`, record.token_sha256).exec();
    const deleted = await fetch(`${a}/tenants/${y.id}`, { method: 'DELETE', headers: asHost });
    t.equal(deleted.status, 404, 'not this deletion: it was gone already (before: 204)');
    t.equal((await callback(a, y, loginOf('dave'))).status, 404, 'and this process serves it no more');
  });

  t.test("a tenant deleted while its callbacks wait out a delay: their late writes leave no key of the tenant's behind", async (t) => {
    const slow = { ...SMALL, rules: [{ name: 'slow', when: { event_type: 'bet' }, then: { delay_ms: 400 } }] };
    const w = await create(a, 'Whiskey', slow);
    t.equal((await callback(a, w, loginOf('erin'))).body.code, 'R0');
    const base = `${prefix}t:${w.id}:`;
    const late = [
      callback(a, w, bet('erin', 'r1', [['1', 'P', 5]], { currency: 'USD' })),
      callback(b, w, bet('erin', 'r2', [['2', 'P', 5]], { currency: 'USD' })),
    ];
    await new Promise((resolve) => setTimeout(resolve, 100)); // both decided, their replies waiting
    t.equal((await fetch(`${a}/tenants/${w.id}`, { method: 'DELETE', headers: asHost })).status, 204);
    await Promise.all(late);
    t.ok(await eventually(async () => (await keys(`${base}*`)).length === 0, 5000), "w's keys are gone");
    await new Promise((resolve) => setTimeout(resolve, 600)); // anything written late would be there by now
    t.same(await keys(`${base}*`), [], 'and none came back');
  });

  t.test('connections stay flat as tenants are added', async (t) => {
    const before = await connections();
    t.ok(before <= 5, `${before} connections: two per process (commands, subscriber) and this test's`);
    const made: Created[] = [];
    for (let i = 0; i < 20; i++) made.push(await create(i % 2 ? a : b, `tenant ${i}`));
    // Both processes serve all of them (each has opened each tenant's wallet).
    for (const base of [a, b]) {
      const ok = await eventually(async () => {
        const listed = (await json(await fetch(`${base}/tenants`, { headers: asHost }))).body as { id: string }[];
        return made.every((m) => listed.some((l) => l.id === m.id));
      }, 10_000);
      t.ok(ok, 'every tenant listed by each process');
    }
    t.equal((await callback(a, made[1]!, loginOf('dave'))).body.code, 'R0');
    t.equal(await connections(), before, 'as many after 20 tenants more');
  });

  t.test('a second pair of hosts: three players a tenant, probe targets on 127.0.0.1', async (t) => {
    // A second pair of hosts (after the connection count above): three players a tenant, probe targets on 127.0.0.1.
    const limited = uniquePrefix('hosted-players');
    const [c, d] = await Promise.all(
      [0, 1].map(async () => {
        const host = await startSimulator({
          ...{ hosted: true, hostToken: HOST_TOKEN, store: 'redis' as const, redisUrl: redis.url, redisPrefix: limited, ...LOADED },
          ...{ tenantPlayers: 3, allowPrivateTargets: true },
        });
        t.teardown(() => host.close());
        return host.url;
      }),
    );

    t.test('--tenant-players holds across processes: of new players racing on two, just as many as the limit get in', async (t) => {
      const refusedBundle = await fetch(`${c}/tenants`, {
        method: 'POST',
        headers: { ...asHost, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Victor' }),
      }).then(json);
      t.equal(refusedBundle.status, 400, 'the bundled certification scenario lists six players: refused on a host of three');
      const w = await create(c!, 'Whiskey', SMALL);
      const users = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'];
      const replies = await Promise.all(users.map((u, i) => callback(i % 2 ? c! : d!, w, loginOf(u))));
      const codes = replies.map((r) => r.body.code as string);
      t.equal(codes.filter((code) => code === 'R0').length, 3, `three players in, at once on two processes: ${codes.join(' ')}`);
      t.equal(codes.filter((code) => code === 'R3').length, 5, 'the others refused with the protocol code');
      const players = (await get(d!, `/t/${w.id}/admin/players`, w.token)).body as { user_id: string }[];
      t.equal(players.length, 3, 'nothing created for the refused');
      const refused = users.find((_, i) => codes[i] === 'R3')!;
      const journal = (await get(c!, `/t/${w.id}/admin/journal?user_id=${refused}`, w.token)).body;
      t.match(journal.entries[0].findings, [{ code: 'PLAYER_LIMIT' }], 'the journal says why');
      const known = players[0]!.user_id;
      t.equal((await callback(d!, w, loginOf(known))).body.code, 'R0', 'a known player still plays');
      const put = await fetch(`${c}/t/${w.id}/admin/players/newcomer`, {
        method: 'PUT',
        headers: { ...bearer(w.token), 'content-type': 'application/json' },
        body: JSON.stringify({ balance: 10 }),
      }).then(json);
      t.equal(put.status, 409, 'PUT of a new player: 409');
      t.equal(put.body.error, 'PLAYER_LIMIT');
    });

    t.test('a probe run started on one process is seen, followed and reported by the other; one run at a time across both', async (t) => {
      // The target holds its replies until the test lets go, so the run is still going while the other process is asked.
      let hold = true;
      const held: (() => void)[] = [];
      const target = createServer((req, res) => {
        req.resume();
        const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"R2"}');
        if (hold) held.push(answer);
        else answer();
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      t.teardown(() => new Promise((resolve) => target.close(resolve)));
      const x = await create(c!, 'Xray', SMALL);
      const post = (base: string) =>
        fetch(`${base}/t/${x.id}/probe`, {
          method: 'POST',
          headers: { ...bearer(x.token), 'content-type': 'application/json' },
          body: JSON.stringify({
            url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/callback`,
            api_id: 'id',
            api_key: 'the-secret-key',
            user: 'u1',
          }),
        }).then(json);
      const started = await post(c!);
      t.equal(started.status, 202);
      const run = started.body.run as string;
      t.ok(await eventually(async () => held.length > 0, 10_000), 'the run is going (the target holds its first request)');
      const second = await post(d!);
      t.equal(second.status, 409, 'a second run on the other process: 409');
      t.match(second.body, { error: 'PROBE_RUNNING', message: new RegExp(run) });
      t.match((await get(d!, `/t/${x.id}/probe/${run}`, x.token)).body, { run, state: 'running' }, 'the other process shows it');
      t.match((await get(d!, `/t/${x.id}/probe`, x.token)).body, [{ run }], 'and lists it');
      const stream = await fetch(`${d}/t/${x.id}/probe/${run}/events`, { headers: bearer(x.token) });
      t.equal(stream.status, 200);
      hold = false;
      for (const answer of held.splice(0)) answer();
      const events = await stream.text(); // ends with the run's end, followed through the other process
      const ended = (await get(c!, `/t/${x.id}/probe/${run}`, x.token)).body;
      t.equal(ended.state, 'done');
      t.equal(events.match(/^event: check$/gm)?.length, ended.checks.length, 'every check, then the end');
      t.match(events, /event: end\ndata: \{"run":"[^"]+","state":"done"/);
      const report = await fetch(`${d}/t/${x.id}/probe/${run}/report`, { headers: bearer(x.token) });
      t.equal(report.status, 200, 'the other process serves the report');
      const text = await report.text();
      t.notMatch(text, /the-secret-key/, 'the key the tenant gave is masked');
      t.equal((await post(d!)).status, 202, 'the run over, the other process starts the next');
      // A run whose process died mid-run (its copy says running, no slot held for it) is shown failed, not running forever.
      const { run: _shown, ...fields } = ended;
      const ghost = { ...fields, id: 'ghost', state: 'running', checks: [] };
      await admin.set(`${new KeyLayout(`${limited}t:${x.id}:`).session}probe:run:ghost`, JSON.stringify(ghost));
      t.match((await get(c!, `/t/${x.id}/probe/ghost`, x.token)).body, { run: 'ghost', state: 'failed', message: /stopped before/ });
    });
  });
}
