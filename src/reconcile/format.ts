import { junitXml } from '../report/junit.js';
import { KIND_MEANING, MISMATCH_KINDS, type Difference, type Reconciliation } from './reconcile.js';

/** Text from either side, safe on a terminal: control characters escaped. */
// eslint-disable-next-line no-control-regex
const printable = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const COLUMNS: [string, (d: Difference) => string][] = [
  ['KIND', (d) => d.kind],
  ['TRANSACTION', (d) => d.transaction_id],
  ['EVENT', (d) => d.event_type],
  ['PLAYER', (d) => d.user_id],
  ['ROUND', (d) => d.game_no],
  ['WALLET', (d) => d.wallet ?? '—'],
  ['PROVIDER', (d) => d.provider ?? '—'],
];

function table(rows: Difference[]): string[] {
  const cells = rows.map((d) => COLUMNS.map(([, get]) => printable(get(d)).slice(0, 60)));
  const widths = COLUMNS.map(([title], k) => Math.max(title.length, ...cells.map((c) => c[k]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, k) => v.padEnd(widths[k]!))
      .join('  ')
      .trimEnd();
  return [line(COLUMNS.map(([t]) => t)), ...cells.map(line)];
}

/** The terminal report: a summary line, the table of mismatches, then what is unresolved. */
export function formatReconciliation(r: Reconciliation, url: string): string {
  const out: string[] = [];
  const agree = r.mismatches.length === 0;
  out.push(
    `wallet-sim reconcile: ${r.walletRows} wallet row(s) at ${url} against ${r.providerRecords} provider record(s): ` +
      `${r.mismatches.length} mismatch(es), ${r.unresolved.length} unresolved — ${agree ? 'they agree' : 'they DISAGREE'}`,
  );
  if (!agree) {
    out.push('', ...table(r.mismatches), '');
    for (const kind of MISMATCH_KINDS) {
      const n = r.mismatches.filter((d) => d.kind === kind).length;
      if (n) out.push(`${kind} (${n}): ${KIND_MEANING[kind]}`);
    }
  }
  if (r.unresolved.length) {
    out.push('', 'Unresolved (not a mismatch):', ...table(r.unresolved).map((l) => `  ${l}`));
    for (const d of r.unresolved) out.push(`  ${printable(d.transaction_id)}: ${printable(d.reason)}`);
  }
  return out.join('\n');
}

/** JUnit: one test case per mismatch kind, failing with every transaction of that kind. */
export function reconciliationJUnit(r: Reconciliation, url: string, seconds: number): string {
  return junitXml([
    {
      name: 'wallet-sim reconcile',
      timestamp: new Date().toISOString(),
      time: seconds,
      properties: { url, wallet_rows: String(r.walletRows), provider_records: String(r.providerRecords) },
      cases: MISMATCH_KINDS.map((kind) => {
        const found = r.mismatches.filter((d) => d.kind === kind);
        return {
          name: kind,
          classname: 'reconcile',
          status: found.length ? ('fail' as const) : ('pass' as const),
          message: found.length ? `${found.length} transaction(s): ${KIND_MEANING[kind]}` : undefined,
          details: found.map((d) => `${d.transaction_id} (${d.event_type}, ${d.user_id}, ${d.game_no}): ${d.reason}`).join('\n'),
        };
      }),
      systemOut: r.unresolved.length ? r.unresolved.map((d) => `unresolved ${d.transaction_id}: ${d.reason}`).join('\n') : undefined,
    },
  ]);
}
