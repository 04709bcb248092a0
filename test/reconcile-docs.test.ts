// docs/reconcile.md's examples are true against `npm start` (the bundled default scenario): the
// callbacks its ledger example shows are accepted, the ledger then reads as the page shows it (but
// for the times), and its provider files, the CSV and the JSON, reconcile with it as the page says.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../src/app/app.js';
import { reconcileCommand } from '../src/commands/reconcile.js';
import { loadScenarioFile } from '../src/core/scenario/scenario.js';
import { openSimulator } from '../src/app/compose.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { DEFAULT_SCENARIO } from '../src/kernel/paths.js';
import { bet, HEADERS, login, result } from './helpers/app.js';
import { listen, post } from './helpers/net.js';
import { doc } from './helpers/readme.js';
import { runHere } from './helpers/run-here.js';

const page = doc('docs/reconcile.md');
const blocks = (lang: string) => [...page.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
const rows = (csv: string) =>
  csv
    .trim()
    .split(/\r?\n/)
    .map((l) => l.split(','));

t.test("the page's ledger and provider files, against the bundled default scenario", async (t) => {
  const curl = blocks('sh').find((b) => b.startsWith('curl ') && b.includes('/admin/ledger'))!;
  const user = /user_id=([\w-]+)/.exec(curl)![1]!;
  const [header, ...shown] = rows(blocks('csv')[0]!);
  t.same(header!.slice(0, 6), ['transaction_id', 'event_type', 'user_id', 'game_no', 'currency', 'amount'], 'the ledger example');
  t.ok(shown.length > 0 && shown.every((r) => r[2] === user), `its rows are ${user}'s`);

  const sim = await openSimulator(loadScenarioFile(DEFAULT_SCENARIO), new MemoryBackend()); // what npm start runs
  const app = await buildApp({ sim });
  t.teardown(() => app.close());
  const base = await listen(app);
  const cb = `${base}/callback`;
  t.equal((await post(cb, login(user), HEADERS)).body.code, 'R0', `${user} logs in`);
  // The callbacks that made the rows: a bet of the amount; a settlement crediting the amount (its stake back and a win).
  const stakes = new Map<string, number>();
  for (const [id, event, , game, currency, amount] of shown) {
    const callback =
      event === 'bet'
        ? bet(user, game!, [['1', 'P', Number(amount)]], { currency })
        : result(user, game!, [['1', 'P', stakes.get(game!)!, Number(amount) - stakes.get(game!)!]], { currency });
    if (event === 'bet') stakes.set(game!, Number(amount));
    const reply = await post(cb, { ...callback, transaction_id: id }, HEADERS);
    t.equal(reply.body.code, 'R0', `${id}: ${event} ${amount} ${currency} accepted (${JSON.stringify(reply.body)})`);
  }
  const ledger = await (await fetch(`${base}/admin/ledger?format=csv&user_id=${user}`)).text();
  const [, ...read] = rows(ledger);
  const drop = (r: string[]) => [...r.slice(0, 7), r[8]]; // all but applied_at
  t.same(read.map(drop), shown.map(drop), 'the ledger reads as the page shows it');

  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-reconcile-docs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = [join(dir, 'books.csv'), join(dir, 'books.json')];
  writeFileSync(files[0]!, blocks('csv')[1]!);
  writeFileSync(files[1]!, blocks('json')[0]!);
  // The CSV adds a failed bet the wallet never applied (agreement) and a pending one (unresolved).
  for (const [file, unresolved] of [
    [files[0]!, 1],
    [files[1]!, 0],
  ] as const) {
    const r = await runHere(reconcileCommand(), ['--url', base, '--provider', file]);
    t.equal(r.code, 0, `${file}: they agree`);
    t.match(r.stdout, `0 mismatch(es), ${unresolved} unresolved`, file, { stdout: r.stdout, stderr: r.stderr });
  }
});
