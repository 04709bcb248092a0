import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { SCENARIOS_DIR } from '../src/kernel/paths.js';
import { parseProviderRecords } from '../src/reconcile/provider-file.js';
import { reconcile } from '../src/reconcile/reconcile.js';
import { parseCsv } from '../src/reconcile/csv.js';
import { LEDGER_COLUMNS } from '../src/ledger/format.js';
import type { LedgerEntry } from '../src/ledger/ledger-entry.js';
import { AdminClient } from '../src/verify/admin-client.js';
import { CLI } from './options.js';
import { ScriptedProvider } from './provider.js';

/**
 * npm run bench -- --soak <minutes> [--soak-players 50] [--soak-seed 1]: the scripted well-behaved
 * provider (bench/provider.ts) plays scenarios/chaos.json against a real wallet-sim (memory store)
 * for that long, then prints callbacks per second, the faults injected by kind, the report's
 * verdict, the reconciliation and the server's memory at the start and the end.
 */
export async function soak(minutes: number, players: number, seed: number): Promise<void> {
  const child = spawn(
    process.execPath,
    [CLI, 'start', '--port', '0', '--scenario', 'chaos', '--seed', String(seed), '--log-level', 'warn'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`wallet-sim exited (${code}) before listening`)));
  });
  const rss = () => {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
    return kb ? `${(Number(kb) / 1024).toFixed(0)} MB` : 'unknown';
  };
  try {
    const chaos = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'chaos.json'), 'utf8')) as {
      grading: { client_timeout_s: number; min_retry_gap_ms: number };
    };
    const memStart = rss();
    const provider = new ScriptedProvider({
      callbackUrl: `${url}/callback`,
      players: Array.from({ length: players }, (_, i) => `chaos-${i + 1}`),
      timeoutMs: chaos.grading.client_timeout_s * 1000,
      backoffMs: chaos.grading.min_retry_gap_ms,
      seed,
    });
    console.log(`soak: ${minutes} min, ${players} players, seed ${seed}, ${url} (chaos.json), ${cpus().length} cores`);
    const started = performance.now();
    const timer = setTimeout(() => provider.stop(), minutes * 60_000);
    await provider.run();
    clearTimeout(timer);
    const seconds = (performance.now() - started) / 1000;
    const memEnd = rss();
    const admin = new AdminClient(url);
    const hits = (await (await fetch(`${url}/admin/scenario/rules`)).json()) as { name: string; fired: number }[];
    const report = await admin.report();
    const { csv, complete, completeFrom } = await admin.ledgerCsv();
    const rows = parseCsv(csv).rows.map(
      (r) => Object.fromEntries(LEDGER_COLUMNS.map((k) => [k, r.cells.get(k)?.value])) as unknown as LedgerEntry,
    );
    const result = reconcile(rows, parseProviderRecords(provider.booksCsv(), 'csv'), { complete, completeFrom });
    const s = provider.stats;
    console.log(`callbacks: ${s.sent} in ${seconds.toFixed(0)} s = ${(s.sent / seconds).toFixed(1)}/s; rounds ${s.rounds}`);
    console.log(`client side: ${s.lost} lost, ${s.timeouts} timed out, ${s.r1} R1, ${s.refused} refused (R2-R4)`);
    console.log(`faults injected: ${hits.map((h) => `${h.name} ${h.fired}`).join(', ')}`);
    const by = (st: string) => report.checks.filter((c) => c.status === st).map((c) => c.id);
    console.log(
      `report: ${by('fail').length} failing [${by('fail').join(', ')}], ${by('pass').length} passing, ${by('pending').length} pending [${by('pending').join(', ')}], ${by('not_exercised').length} not exercised [${by('not_exercised').join(', ')}]`,
    );
    for (const c of report.checks.filter((x) => x.status === 'fail'))
      for (const v of c.violations.slice(0, 5)) console.log(`  ${c.id}: ${v.message}`);
    console.log(
      `reconcile: ${result.walletRows} wallet rows, ${result.providerRecords} provider records, ${result.mismatches.length} mismatches, ${result.unresolved.length} unresolved`,
    );
    for (const m of result.mismatches.slice(0, 10)) console.log(`  ${m.kind} ${m.transaction_id}: ${m.reason}`);
    console.log(`server memory (RSS): ${memStart} at the start, ${memEnd} at the end`);
  } finally {
    child.kill('SIGTERM');
  }
}
