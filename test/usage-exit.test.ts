// A usage error (an option missing or refused) is "could not check": exit 2 from the commands whose
// exit 1 says a check failed (docs/cli.md), so CI tells a mistyped command line from a failing check.
// Each case is parsed in this process as the built CLI parses it (test/helpers/run-here.ts: its
// process.exit caught); two are spawned, to see the same exit and stderr from a real process.
import t from 'tap';
import { type RanHere, runCli } from './helpers/run-here.js';
import { runAll } from './helpers/spawn-cli.js';

t.setTimeout(120_000); // a node start per spawned case, two at a time

const NOT_A_URL = '127.0.0.1:34513';

/** [command line, exit, what stderr says went wrong]: each ends with the command's own --help to run. */
const CASES: [string[], number, RegExp][] = [
  [['report', '--url', NOT_A_URL], 2, /argument '127\.0\.0\.1:34513' is invalid\. not a URL; give an http URL/],
  [['report'], 2, /required option '--url <url>' not specified/],
  [['report', '--url', 'http://127.0.0.1:1', '--fail-on', 'warnings'], 2, /--fail-on <list>' argument 'warnings' is invalid/],
  [['verify', '--url', NOT_A_URL, '--expect', 'x.json'], 2, /not a URL/],
  [['verify', '--url', 'http://127.0.0.1:1'], 2, /required option '--expect <file>' not specified/],
  [['reconcile', '--url', 'http://127.0.0.1:1'], 2, /required option '--provider <file>' not specified/],
  [['tail', '--url', NOT_A_URL], 2, /not a URL/],
  [['probe', '--url', 'http://127.0.0.1:1/callback', '--api-id', 'a', '--api-key', 'b'], 2, /required option '--user <user_id>'/],
  [['tenant', 'list', '--url', 'http://127.0.0.1:1'], 2, /required option '--host-token-file <file>' not specified/],
  [['tenant', 'rename'], 2, /unknown command 'rename'/],
  // A mistyped option is named before the required option it spelled: the typo is the mistake.
  [['tenant', 'create', '--nmae', 'acme', '--url', 'http://127.0.0.1:1'], 2, /unknown option '--nmae'\n\(Did you mean --name\?\)/],
  [['verify', '--url', 'http://127.0.0.1:1', '--expct', 'x.json'], 2, /unknown option '--expct'\n\(Did you mean --expect\?\)/],
  [['verify-report', 'x.json'], 2, /required option '--public-key <pem>' not specified/],
  // Their docs give no exit 2: a usage error stays 1, as any other failure of theirs.
  [['send', 'login'], 1, /required option '--url <url>' not specified/],
  [['validate'], 1, /missing required argument 'files'/],
  [['keygen'], 1, /required option '--out <dir>' not specified/],
  [['start', '--port', 'x'], 1, /option '--port <n>' argument 'x' is invalid/],
  [['openapi', '--bogus'], 1, /unknown option '--bogus'/],
];

t.test('a usage error exits 2 where 1 means a failed check, and says which --help to read', async (t) => {
  const ran: RanHere[] = [];
  for (const [args] of CASES) ran.push(await runCli(args));
  CASES.forEach(([args, code, said], i) => {
    const r = ran[i]!;
    const line = `wallet-sim ${args.join(' ')}`;
    t.equal(r.code, code, `${line}: exit ${code}`);
    t.match(r.stderr, said, line);
    t.equal(r.stdout, '', `${line}: nothing on stdout`);
    // Every command names its --help, whatever its exit.
    const help = `wallet-sim ${args[0] === 'tenant' && args[1] !== 'rename' ? `tenant ${args[1]}` : args[0]} --help`;
    t.match(r.stderr, `(run ${help} for its options)`, `${line}: says which help to read`);
  });
});

t.test('the same from a real process: its exit status and stderr', async (t) => {
  const spawned = [CASES[1]!, CASES.find(([args]) => args[0] === 'send')!];
  const ran = await runAll(spawned.map(([args]) => args));
  spawned.forEach(([args, code, said], i) => {
    t.equal(ran[i]!.code, code, `wallet-sim ${args.join(' ')}: exit ${code}`);
    t.match(ran[i]!.stderr, said);
    t.match(ran[i]!.stderr, `(run wallet-sim ${args[0]} --help for its options)`);
  });
});

t.test('--help and --version still exit 0', async (t) => {
  const ran = await runAll([
    ['report', '--help'],
    ['tenant', 'list', '--help'],
    ['tenant', 'create', '--nmae', 'x', '--help'],
    ['--version'],
  ]);
  for (const r of ran) t.equal(r.code, 0, r.stderr);
});
