// A newcomer's rough edges at the command line: options the server cannot
// use, files that cannot be written or read, token files that are not one token. Every one is a
// line saying what to do, with the exit its command documents (docs/cli.md), never a stack.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from './helpers/run-here.js';
import { run, runAll, start } from './helpers/spawn-cli.js';

t.setTimeout(240_000); // a node start per case, two at a time

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-front-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const twoLines = file('tok', 'secret-part-one\nsecret-part-two\n');
const pem = file('key.pem', '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIPEMSECRETPEMSECRET\n-----END PRIVATE KEY-----\n');
const provider = file('provider.csv', 'transaction_id,user_id,event_type,amount,currency\n');
const expect = file('expect.json', '{"expect": []}');
/** Nothing listens on port 9 (discard) here; every case is refused before anything is sent. */
const URL = 'http://127.0.0.1:9';
/** A directory that cannot be made (a file is in its way), for root too. */
const NO_DIR = join(twoLines, 'reports');
const cannotWrite = (path: string, flag: string) =>
  `cannot write to ${path} (ENOTDIR: a part of its path is a file, not a directory); choose a file in a directory you can write to with ${flag}`;

/** [command line, exit, what stderr says]. */
const CASES: [string[], number, string | RegExp][] = [
  [['start', '--port', '0', '--path', 'callback'], 1, 'wallet-sim: --path "callback" must start with "/"'],
  [['start', '--port', '0', '--path', '/admin/reset'], 1, `--path "/admin/reset" is taken by wallet-sim's own routes`],
  [['start', '--port', '0', '--path', '/a b'], 1, '--path "/a b" holds " "'],
  [['start', '--port', '0', '--path', '/cb?x=1'], 1, '--path "/cb?x=1" holds "?"'],
  [['openapi', '--path', 'nopath'], 1, 'wallet-sim openapi: --path "nopath" must start with "/"'],
  [
    ['start', '--port', '0', '--host', '192.0.2.1'],
    1,
    /^wallet-sim: cannot listen on 192\.0\.2\.1 port 0: .* give --host an address of this machine/,
  ],
  [['start', '--port', '0', '--host', 'no.such.host.invalid'], 1, /the host name no\.such\.host\.invalid does not resolve; give --host/],
  [
    ['probe', '--url', `${URL}/callback`, '--api-id', 'a', '--api-key', 'b', '--user', 'u', '--junit', `${NO_DIR}/p.xml`],
    2,
    `wallet-sim probe: ${cannotWrite(`${NO_DIR}/p.xml`, '--junit')}; nothing was sent`,
  ],
  [['openapi', '--out', `${NO_DIR}/o.json`], 1, `wallet-sim openapi: ${cannotWrite(`${NO_DIR}/o.json`, '--out')}`],
  [['report', '--url', URL, '--junit', `${NO_DIR}/r.xml`], 2, `wallet-sim report: ${cannotWrite(`${NO_DIR}/r.xml`, '--junit')}`],
  [['report', '--url', URL, '--html', dir], 2, `cannot write to ${dir} (EISDIR: it is a directory)`],
  [['verify', '--url', URL, '--expect', expect, '--junit', `${NO_DIR}/v.xml`], 2, cannotWrite(`${NO_DIR}/v.xml`, '--junit')],
  [['reconcile', '--url', URL, '--provider', provider, '--junit', `${NO_DIR}/c.xml`], 2, cannotWrite(`${NO_DIR}/c.xml`, '--junit')],
  [['tenant', 'list', '--url', URL, '--host-token-file', twoLines], 2, `${twoLines} holds more than one line`],
  [['report', '--url', URL, '--token-file', twoLines], 2, `${twoLines} holds more than one line`],
  [['tail', '--url', URL, '--token-file', pem], 2, `${pem} holds more than one line`],
  [['report', '--url', URL, '--admin-token', 'secret-part-one\nsecret-part-two'], 2, 'the --admin-token given holds more than one line'],
  [
    ['send', 'login', '--url', `${URL}/callback`, '--body', 'nofile.json'],
    1,
    /--body nofile\.json: there is no such file \(looked for it from .*\): check the path/,
  ],
];

t.test('each refused with one message saying what to do, its exit, no stack and no secret', async (t) => {
  // `start` in a process of its own (a refused listen leaves a server behind); the others parsed here
  // as the built CLI parses them (test/helpers/run-here.ts), and two of them spawned as well.
  const spawned = CASES.filter(([args]) => args[0] === 'start' || args.includes('--token-file'));
  const byProcess = await runAll(spawned.map(([args]) => args));
  const ran: { code: number | null; stdout: string; stderr: string }[] = [];
  for (const c of CASES) ran.push(spawned.includes(c) ? byProcess[spawned.indexOf(c)]! : await runCli(c[0]));
  CASES.forEach(([args, code, said], i) => {
    const r = ran[i]!;
    const line = `wallet-sim ${args.join(' ')}`;
    t.equal(r.code, code, `${line}: exit ${code} (${r.stderr})`);
    t.match(r.stderr, said, line);
    t.notMatch(r.stderr, /\n\s+at |AssertionError|FST_ERR|"level"/, `${line}: no stack, no log line`);
    t.notMatch(r.stderr, /secret-part|PEMSECRET|BEGIN PRIVATE/, `${line}: no token echoed`);
    t.equal(r.stdout, '', `${line}: nothing on stdout (nothing run)`);
  });
});

t.test('reconcile --provider naming no file: the same words as verify --expect', async (t) => {
  const sim = await start(t, ['--port', '0']);
  const ran = await run(['reconcile', '--url', sim.url, '--provider', 'nofile.csv']);
  t.equal(ran.code, 2, 'could not check');
  t.equal(ran.stderr, `wallet-sim reconcile: nofile.csv: there is no such file (looked for it from ${process.cwd()}): check the path\n`);
});
