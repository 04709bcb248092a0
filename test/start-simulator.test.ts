// The Node API (docs/node-api.md): startSimulator as a provider's test suite uses it, over a real
// socket — a login to its callback URL, then its admin methods, then close.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSimulator, StartFailure } from '../src/index.js';
import { bet, HEADERS, login, post } from './helpers/app.js';
import { HOST_TOKEN } from './helpers/hosted.js';

/** Resolves with whether a TCP connection to the URL's port is accepted. */
const accepts = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('connect', () => resolve(socket.destroy() && true)).on('error', () => resolve(false));
  });

t.test('certification: a login to callbackUrl shows in players(), journal() and report(); close() frees the port', async (t) => {
  const sim = await startSimulator({ scenario: 'certification' });
  t.teardown(() => sim.close());
  t.match(sim.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'any free port on loopback by default');
  t.equal(sim.callbackUrl, `${sim.url}/callback`);

  const sent = await post(sim.callbackUrl, login('cert-locked'), HEADERS);
  t.equal(sent.body.code, 'R2', "the certification scenario's rule answered (refused login)");
  const again = await post(sim.callbackUrl, login('cert-locked'), HEADERS);
  t.equal(again.body.code, 'R0');

  const players = await sim.players();
  t.same(
    players.find((p) => p.user_id === 'cert-locked'),
    { user_id: 'cert-locked', balance: 1000, currency: 'USD' },
  );
  const journal = await sim.journal({ user_id: 'cert-locked', code: 'R2' });
  t.equal(journal.entries.length, 1, 'journal() takes the filters of GET /admin/journal');
  const report = await sim.report();
  t.equal(report.scenario, 'certification');
  t.ok(report.checks.length > 0, 'the checklist');

  t.same(await sim.setPlayer('newcomer', { balance: 50, currency: 'USD' }), { user_id: 'newcomer', balance: 50, currency: 'USD' });
  t.same(await sim.reset(), { ok: true });
  t.equal((await sim.journal()).entries.length, 0, 'reset() clears the journal');
  t.notOk(
    (await sim.players()).some((p) => p.user_id === 'newcomer'),
    'and puts the players back',
  );
  await t.rejects(sim.setPlayer('x', { balance: -1, currency: 'USD' }), /PUT \/admin\/players\/x answered 400: .*balance/);

  await sim.close();
  await sim.close(); // twice is fine
  t.equal(await accepts(sim.url), false, 'nothing listens after close()');
  await t.rejects(
    sim.players(),
    { message: 'wallet-sim: this simulator is closed: start a new one (startSimulator)' },
    'a method after close()',
  );
});

t.test('start options in camelCase: path, credentials, admin token', async (t) => {
  const sim = await startSimulator({ path: '/wallet', apiId: 'me', apiKey: 'secret', adminToken: 'tok', retainTransactions: 10 });
  t.teardown(() => sim.close());
  t.equal(sim.callbackUrl, `${sim.url}/wallet`);
  const sent = await post(sim.callbackUrl, login('player-1'), { ...HEADERS, 'api-id': 'me', 'api-key': 'secret' });
  t.equal(sent.body.code, 'R0');
  t.equal((await sim.journal()).entries.length, 1, 'the methods carry the admin token');
  const admin = await fetch(`${sim.url}/admin/players`);
  t.equal(admin.status, 401, 'the admin API itself is locked');
});

t.test('a wrong option is a StartFailure that says what to do; nothing keeps running', async (t) => {
  const cases: [object, RegExp][] = [
    [{ bogus: 1 }, /has no option "bogus"; it takes these .*retainTransactions/],
    // Named as the caller wrote them (docs/node-api.md), not as command-line flags.
    [{ port: 70000 }, /the `port` option .*70000.* must be an integer from 0 to 65535/],
    [{ store: 'paper' }, /the `store` option .*paper.*Allowed choices are memory, file, redis/],
    [{ scenario: 'no-such' }, /no bundled scenario of that name.*certification/s],
    [{ headersTimeoutMs: 5000, requestTimeoutMs: 1000 }, /--headers-timeout-ms \(5000\) must not exceed/],
    [{ store: 'redis', redisCluster: '127.0.0.1:1', redisPrefix: 'w{x}:' }, /--redis-prefix "w\{x\}:" holds .*without braces/],
    [
      { data: '/tmp/wallet.json' },
      /the `data` option \/tmp\/wallet\.json is for the `store` option file, but the store is memory: .*add the `store` option file/,
    ],
    [
      { store: 'redis' },
      /the `store` option redis needs the `redisUrl` option, e\.g\. redis:\/\/127\.0\.0\.1:6379, or the `redisCluster` option/,
    ],
    [
      { store: 'redis', redisUrl: 'redis://127.0.0.1:1', redisCluster: '127.0.0.1:2' },
      /the `redisUrl` option and the `redisCluster` option name two Redis/,
    ],
  ];
  for (const [options, message] of cases) {
    const failed = await startSimulator(options as never).then(
      (sim) => sim.close().then(() => undefined), // started: the case fails, and nothing keeps running
      (e: Error) => e,
    );
    t.ok(failed instanceof StartFailure, JSON.stringify(options));
    t.match(failed?.message, message);
  }
});

t.test('a port in use: StartFailure naming the port and --port 0', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => taken.close(resolve)));
  const port = (taken.address() as { port: number }).port;
  await t.rejects(startSimulator({ port }), { name: 'StartFailure', message: new RegExp(`port ${port} on 127.0.0.1 is already in use`) });
});

t.test('a second simulator on the data file of a running one is refused; the first keeps every change', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-api-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const data = join(dir, 'wallet.json');
  const a = await startSimulator({ store: 'file', data });
  t.teardown(() => a.close());
  const second = await startSimulator({ store: 'file', data }).then(
    (b) => b.close(),
    (e: Error) => e,
  );
  t.ok(second instanceof StartFailure, 'refused');
  t.match(
    second?.message,
    new RegExp(`is in use by this process \\(pid ${process.pid}\\): another simulator in it has it open .*close that one first`),
  );
  await a.setPlayer('only-a', { balance: 1, currency: 'USD' });
  await a.setPlayer('only-a2', { balance: 3, currency: 'USD' });
  await a.close();
  const c = await startSimulator({ store: 'file', data });
  t.teardown(() => c.close());
  const kept = (await c.players()).filter((p) => p.user_id.startsWith('only-')).map((p) => p.user_id);
  t.same(kept.sort(), ['only-a', 'only-a2']);
});

t.test('a hosted wallet-sim closed: its methods say so', async (t) => {
  const host = await startSimulator({ hosted: true, hostToken: HOST_TOKEN });
  await host.close();
  await t.rejects(host.tenants(), { message: 'wallet-sim: this hosted wallet-sim is closed: start a new one (startSimulator)' });
});

t.test('report({ wait }): waits until no check is pending, as report --wait does', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-wait-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'lost.json');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    file,
    JSON.stringify({
      name: 'lost',
      credentials: { api_id: 'sandbox', api_key: 'sandbox-key' },
      defaults: { currency: 'USD', balance: 1000, auto_create_players: true },
      rules: [{ name: 'lost bet', when: { event_type: 'bet' }, then: { drop_connection: true }, times: 1 }],
      grading: { client_timeout_s: 0.2, retry_window_s: 1, round_max_age_s: 1 },
    }),
  );
  const sim = await startSimulator({ scenario: file });
  t.teardown(() => sim.close());
  await post(sim.callbackUrl, login('p1'), HEADERS);
  await post(sim.callbackUrl, bet('p1', 'g1', [['1', 'P', 10]], { currency: 'USD' }), HEADERS).catch(() => undefined); // lost, never resent
  const now = await sim.report();
  t.ok(now.summary.pending > 0, 'right after the run, a window is open');
  const waited = await sim.report({ wait: 20 });
  t.equal(waited.summary.pending, 0, 'after waiting: nothing pending');
});

t.test('report({ user_id }) of a player with no callback (a typo) rejects, as report --user refuses it', async (t) => {
  const sim = await startSimulator({});
  t.teardown(() => sim.close());
  await post(sim.callbackUrl, login('p1'), HEADERS);
  await t.rejects(sim.report({ user_id: 'p-1' }), {
    message: /report\(\{ user_id: "p-1" \}\): the session has no callback of that player, so there is nothing to grade/,
  });
  t.match(await sim.report({ user_id: 'p1' }), { user_id: 'p1' }, 'a player who played: its report');
});

t.test(
  "report({ user_id }) of a player who played, its callbacks gone from a bounded journal: its report, not a typo's refusal",
  async (t) => {
    const sim = await startSimulator({ journalSize: 2 });
    t.teardown(() => sim.close());
    for (const user of ['zoe', 'zoe', 'a', 'b', 'c']) await post(sim.callbackUrl, login(user), HEADERS);
    t.equal((await sim.journal({ user_id: 'zoe' })).count, 0, "zoe's logins left the journal");
    t.match(await sim.report({ user_id: 'zoe' }), { user_id: 'zoe' });
    await t.rejects(sim.report({ user_id: 'zo' }), { message: /the session has no callback of that player/ }, 'a typo still refused');
  },
);

t.test('an option given as undefined takes the API default (port 0, silent), not the command line default (8080, logs)', async (t) => {
  const env: Record<string, string | undefined> = {};
  const started = await Promise.all(
    [0, 1].map(() => startSimulator({ port: env.PORT ? Number(env.PORT) : undefined, logLevel: env.LOG ? ('info' as const) : undefined })),
  );
  t.teardown(() => Promise.all(started.map((s) => s.close())));
  t.not(started[0]!.url, started[1]!.url, 'two at once, each on a free port');
  t.notMatch(started[0]!.url, /:8080$/);
});

t.test('a scenario given as an object: told to give a path or a name (was "no scenario file [object Object]")', async (t) => {
  await t.rejects(startSimulator({ scenario: { name: 'x' } as unknown as string }), {
    name: 'StartFailure',
    message:
      "wallet-sim: startSimulator's scenario takes a file path or a bundled scenario name, not an object: write the document to a file (writeFileSync) and give its path",
  });
});

t.test("a wrong cors origin is told in the API's words (it said --cors)", async (t) => {
  const e = await startSimulator({ cors: 'qa.example' }).catch((err: Error) => err);
  t.match(e, {
    name: 'StartFailure',
    message: /the `cors` option: "qa\.example" is not an origin; .* e\.g\. cors: 'http:\/\/localhost:3000/,
  });
  t.notMatch((e as Error).message, /--cors/);
});

t.test("the types: journal({ event_type }) takes any text, as the route does; logLevel only pino's levels", async (t) => {
  const sim = await startSimulator({});
  t.teardown(() => sim.close());
  await post(sim.callbackUrl, { ...login('p1'), event_type: 'logout' }, HEADERS);
  t.match(
    (await sim.journal({ event_type: 'logout' })).entries,
    [{ event_type: 'logout', code: 'R3' }],
    'the refused callback, by the type it sent',
  );
  // @ts-expect-error -- not a level: refused when compiled, as it is refused when run
  await t.rejects(startSimulator({ logLevel: 'verbose' }), { message: /Allowed choices are fatal, error/ });
});
