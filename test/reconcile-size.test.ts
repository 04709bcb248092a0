// reconcile's memory does not grow with the provider file: a real child process under a small heap
// reads a 300,000-row file (the whole file as records would need several times that heap), a field
// beyond the bound is refused naming its line, and a JSON file beyond its bound is refused unread.
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MAX_FIELD } from '../src/reconcile/csv.js';
import { MAX_JSON_BYTES } from '../src/reconcile/provider-file.js';
import { PROVIDER_HEADER, writeProviderFile } from '../scripts/provider-file.js';
import { run, start } from './helpers/spawn-cli.js';
import { tempDir } from './helpers/temp.js';

const dir = tempDir('wallet-sim-reconcile-size-');
/** Far below what 300,000 records held at once take (each a few hundred bytes): reconcile must stream. */
const HEAP = { NODE_OPTIONS: '--max-old-space-size=64' };

t.test('300,000 provider rows under a 64 MB heap; a field beyond the bound; a JSON file beyond its bound', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'warn']);
  const big = join(dir, 'big.csv');
  const rows = 300_000;
  await writeProviderFile(big, rows);
  const r = await run(['reconcile', '--url', sim.url, '--provider', big], HEAP);
  t.equal(r.code, 1, `every row read (the wallet has none of them: exit 1, not a crash): ${r.stderr.slice(0, 500)}`);
  // Of the generated rows: every 50th failed (agreement), every 97th pending (unresolved), the rest ok (missing in the wallet).
  const failed = Math.ceil(rows / 50);
  const pending = Math.ceil(rows / 97) - Math.ceil(rows / (50 * 97));
  t.match(r.stdout, `against ${rows} provider record(s): ${rows - failed - pending} mismatch(es), ${pending} unresolved`);
  t.match(r.stdout, /MISSING_IN_WALLET \(\d+\): .*\(the first 1000 listed above\)/, 'the listing is bounded, the count exact');
  t.ok(r.stdout.length < 2_000_000, `the output is bounded too (${r.stdout.length} characters)`);

  const long = join(dir, 'long-field.csv');
  writeFileSync(long, `${PROVIDER_HEADER}\nt1,bet,p,G1,1,ok,open\nt2,bet,${'x'.repeat(8 * 1024 * 1024)},G1,1,ok,open\n`);
  const quote = join(dir, 'open-quote.csv');
  writeFileSync(quote, `${PROVIDER_HEADER}\nt1,bet,p,G1,1,ok,open\nt2,bet,p,"G1,1,ok,open\n${'t,bet,p,G,1,ok,open\n'.repeat(10_000)}`);
  const json = join(dir, 'huge.json');
  writeFileSync(json, '');
  truncateSync(json, MAX_JSON_BYTES + 1); // sparse: nothing to write, nothing read
  const [field, unclosed, tooBig] = await Promise.all([
    run(['reconcile', '--url', sim.url, '--provider', long], HEAP),
    run(['reconcile', '--url', sim.url, '--provider', quote], HEAP),
    run(['reconcile', '--url', sim.url, '--provider', json], HEAP),
  ]);
  t.equal(field.code, 2, field.stderr.slice(0, 300));
  t.match(field.stderr, `${long}: line 3, column 8: a field longer than ${MAX_FIELD} characters begins here (line 3)`);
  t.equal(unclosed.code, 2, 'a quote never closed reads on into the rest of the file: bounded the same way');
  t.match(unclosed.stderr, `${quote}: line 3, column 10: a field longer than ${MAX_FIELD} characters`);
  t.equal(tooBig.code, 2);
  t.match(tooBig.stderr, /a JSON provider file is read whole, up to 64 MiB: export a larger one as CSV/);
});
