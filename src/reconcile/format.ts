import { junitXml } from '../report/junit.js';
import { KIND_MEANING, LISTED_PER_KIND, MISMATCH_KINDS, type Difference, type Reconciliation } from './reconcile.js';

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

const total = (r: Reconciliation) => MISMATCH_KINDS.reduce((n, k) => n + r.counts[k], 0);

/** No mismatch: they agree, on what could be compared when some rows are unresolved (those need a look, not a fix). */
const agreement = (unresolved: number) =>
  unresolved ? `they agree on all that could be compared; the ${unresolved} unresolved, below, could not be` : 'they agree';

/** The terminal report: a summary line, the table of mismatches, then what is unresolved. */
export function formatReconciliation(r: Reconciliation, url: string): string {
  const out: string[] = [];
  const mismatches = total(r);
  const agree = mismatches === 0;
  const who = r.user ? ` for player ${JSON.stringify(printable(r.user.id))} only` : '';
  out.push(
    `wallet-sim reconcile${who}: ${r.walletRows} wallet row(s) at ${url} against ${r.providerRecords} provider record(s): ` +
      `${mismatches} mismatch(es), ${r.counts.UNRESOLVED} unresolved — ${agree ? agreement(r.counts.UNRESOLVED) : 'they DISAGREE'}`,
  );
  if (r.user)
    out.push(
      `(--user: the ledger's rows of that player only; ${r.user.skipped} provider record(s) of other players set aside, not compared)`,
    );
  if (r.proxy) {
    const from = r.proxy.journalFrom;
    out.push(
      `(proxy mode: the ledger holds what ${printable(r.proxy.upstream)} answered as applied; what it may have applied besides ` +
        '(no readable answer, or applied outside the ledger) is read from the journal and listed as unresolved' +
        (from === undefined
          ? ')'
          : `; ${from ? `the journal reaches back to ${from} only` : 'the journal is empty'} (DELETE /admin/journal, --journal-size): ` +
            `such a callback ${from ? 'before then' : 'of the session'} is not known: check the wallet's own books for it)`),
    );
  }
  if (!agree) {
    out.push('', ...table(r.mismatches), '');
    // The table shows the provider's ids: which of them differ from the wallet's is in the reason.
    const fields = r.mismatches.filter((d) => d.kind === 'FIELD_MISMATCH');
    for (const d of fields) out.push(`${printable(d.transaction_id)}: ${printable(d.reason)}`);
    if (fields.length) out.push('');
    for (const kind of MISMATCH_KINDS) {
      const n = r.counts[kind];
      if (n) out.push(`${kind} (${n}): ${KIND_MEANING[kind]}${n > LISTED_PER_KIND ? ` (the first ${LISTED_PER_KIND} listed above)` : ''}`);
    }
  }
  if (r.counts.UNRESOLVED) {
    out.push('', 'Unresolved (not a mismatch):', ...table(r.unresolved).map((l) => `  ${l}`));
    for (const d of r.unresolved) out.push(`  ${printable(d.transaction_id)}: ${printable(d.reason)}`);
    if (r.counts.UNRESOLVED > LISTED_PER_KIND) out.push(`  … and ${r.counts.UNRESOLVED - LISTED_PER_KIND} more, not listed`);
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
      properties: {
        url,
        wallet_rows: String(r.walletRows),
        provider_records: String(r.providerRecords),
        ...(r.user && { user_id: r.user.id, other_players_set_aside: String(r.user.skipped) }),
      },
      cases: MISMATCH_KINDS.map((kind) => {
        const found = r.mismatches.filter((d) => d.kind === kind);
        return {
          name: kind,
          classname: 'reconcile',
          status: found.length ? ('fail' as const) : ('pass' as const),
          message: found.length ? `${r.counts[kind]} transaction(s): ${KIND_MEANING[kind]}` : undefined,
          details: found.map((d) => `${d.transaction_id} (${d.event_type}, ${d.user_id}, ${d.game_no}): ${d.reason}`).join('\n'),
        };
      }),
      systemOut: r.unresolved.length ? r.unresolved.map((d) => `unresolved ${d.transaction_id}: ${d.reason}`).join('\n') : undefined,
    },
  ]);
}
