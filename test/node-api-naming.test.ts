// The Node API's rejections name its options as a caller writes them (docs/node-api.md: `port`,
// `path`, `signingKey`; no environment variables), and a path or host it cannot listen on is a
// StartFailure saying what to fix, not the router's AssertionError or a listen() stack.
import { createServer } from 'node:net';
import t, { type Test } from 'tap';
import { startSimulator, StartFailure } from '../src/index.js';
import { callbackPathProblem } from '../src/routes/callback-path.js';
import { MESSAGES } from '../src/text/messages.js';
import { API_NAMING } from '../src/text/option-naming.js';

/** The StartFailure startSimulator rejects with (a simulator that started is closed and fails the test). */
async function failure(t: Test, options: Parameters<typeof startSimulator>[0]): Promise<Error | undefined> {
  const got = await startSimulator(options).then(
    async (sim) => {
      await sim.close();
      return undefined;
    },
    (e: Error) => e,
  );
  t.ok(got instanceof StartFailure, `${JSON.stringify(options)}: a StartFailure (${got?.name})`);
  return got;
}

const NO_CLI = /^(?![\s\S]*(--[a-z]|WALLET_SIM_))/;

t.test('a callback path the router cannot serve: StartFailure naming the `path` option', async (t) => {
  const cases: [string, RegExp][] = [
    ['callback', /the `path` option "callback" must start with "\/"/],
    ['/admin/reset', /the `path` option "\/admin\/reset" is taken by wallet-sim's own routes/],
    ['/health', /is taken by wallet-sim's own routes/],
    ['/a b', /holds " ", which no callback URL's path can carry/],
    ['/cb?x=1', /holds "\?"/],
    ['/cb#x', /holds "#"/],
    ['/cb/:id', /holds ":"/],
  ];
  for (const [path, message] of cases) {
    const e = await failure(t, { path });
    t.match(e?.message, message, path);
    t.match(e?.message, NO_CLI, `${path}: no CLI flag named`);
  }
  const sim = await startSimulator({ path: '/wallet/v1/callback' });
  t.teardown(() => sim.close());
  t.equal(sim.callbackUrl, `${sim.url}/wallet/v1/callback`, 'a usable path starts as before');
});

t.test('callbackPathProblem: wallet-sim own routes and their subpaths only', async (t) => {
  for (const ok of ['/callback', '/administrator', '/uix', '/healthz', '/tx', '/docsy', '/wallet/admin'])
    t.equal(callbackPathProblem(ok), undefined, ok);
  for (const taken of ['/', '/admin', '/admin/players', '/ui', '/ui/', '/docs/json', '/openapi.json', '/metrics', '/t/abc/callback'])
    t.match(callbackPathProblem(taken), /^--path ".*" is taken by wallet-sim's own routes/, taken);
  t.match(callbackPathProblem('/a\tb'), /holds "\\t"/);
});

t.test('a port in use names the `port` option, not --port', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => taken.close(resolve)));
  const port = (taken.address() as { port: number }).port;
  const e = await failure(t, { port });
  t.match(e?.message, `port ${port} on 127.0.0.1 is already in use; pick another with the \`port\` option (0 = any free port)`);
  t.match(e?.message, NO_CLI);
});

t.test('a host this machine cannot listen on: a StartFailure naming the `host` option', async (t) => {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737), never a local address; .invalid never resolves (RFC 6761).
  const cases: [string, RegExp][] = [
    [
      '192.0.2.1',
      /cannot listen on 192\.0\.2\.1 port 0: 192\.0\.2\.1 is not an address of this machine; give the `host` option an address/,
    ],
    [
      'no.such.host.invalid',
      /cannot listen on no\.such\.host\.invalid port 0: the host name no\.such\.host\.invalid does not resolve; give the `host` option/,
    ],
  ];
  for (const [host, message] of cases) {
    const e = await failure(t, { host });
    t.match(e?.message, message, host);
    t.notMatch(e?.message, /\n/, `${host}: one line`);
  }
});

t.test('a port below 1024 refused (EACCES): one line naming the port option, in either naming', async (t) => {
  t.equal(
    MESSAGES.CANNOT_LISTEN('EACCES', '127.0.0.1', 80),
    'wallet-sim: cannot listen on 127.0.0.1 port 80: ports below 1024 need privileges this user lacks; pick one from 1024 up with --port (0 = any free port); nothing started',
  );
  t.match(MESSAGES.CANNOT_LISTEN('EACCES', '127.0.0.1', 80, API_NAMING), /pick one from 1024 up with the `port` option/);
});

t.test("an option refused by start's parser is named as the API spells it", async (t) => {
  const e = await failure(t, { retainTransactions: 0 });
  t.match(e?.message, /^wallet-sim: startSimulator: the `retainTransactions` option argument '0' is invalid/);
});
