import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { LEDGER_COLUMNS } from '../ledger/format.js';
import type { LedgerEntry } from '../ledger/ledger-entry.js';
import { FileProblem, parseCsv } from '../reconcile/csv.js';
import { formatReconciliation, reconciliationJUnit } from '../reconcile/format.js';
import { ProviderFileError, type ProviderRecord, readProviderFile } from '../reconcile/provider-file.js';
import { reconcile } from '../reconcile/reconcile.js';
import { AdminClient, AdminError } from '../verify/admin-client.js';
import { adminTokenOption, junitOption, markRequired, simulatorUrlOption } from './options.js';

interface ReconcileOptions {
  url: string;
  provider: string;
  junit?: string;
  adminToken?: string;
}

/** The ledger's CSV (our own format) as rows. */
function ledgerRows(csv: string): LedgerEntry[] {
  const { header, rows } = parseCsv(csv);
  const names = header.map((h) => h.value);
  if (LEDGER_COLUMNS.some((c) => !names.includes(c))) throw new Error(`the ledger's columns are ${names.join(',')}; is this a wallet-sim?`);
  return rows.map((r) => Object.fromEntries(LEDGER_COLUMNS.map((c) => [c, r.cells.get(c)!.value])) as unknown as LedgerEntry);
}

export function reconcileCommand(): Command {
  return markRequired(new Command('reconcile'))
    .description(
      "Compare the wallet's ledger (GET /admin/ledger) with the provider's own records (CSV or JSON, docs/reconcile.md) and list every disagreement; exit 0 when they agree, 1 when not, 2 when either cannot be read",
    )
    .addOption(simulatorUrlOption())
    .addOption(
      new Option(
        '--provider <file>',
        "the provider's records: file.csv or file.json (the format follows the extension)",
      ).makeOptionMandatory(),
    )
    .addOption(junitOption('also write JUnit XML (one test case per mismatch kind)'))
    .addOption(adminTokenOption())
    .action(async (o: ReconcileOptions) => {
      const started = performance.now();
      const url = o.url.replace(/\/+$/, '');
      let records: ProviderRecord[];
      try {
        records = readProviderFile(o.provider);
      } catch (e) {
        if (!(e instanceof ProviderFileError)) throw e;
        console.error(`wallet-sim reconcile: ${e.message}`);
        process.exitCode = 2;
        return;
      }
      let ledger: { rows: LedgerEntry[]; complete: boolean; completeFrom?: number };
      try {
        const { csv, complete, completeFrom } = await new AdminClient(url, o.adminToken).ledgerCsv();
        ledger = { rows: ledgerRows(csv), complete, completeFrom };
      } catch (e) {
        if (!(e instanceof AdminError) && !(e instanceof FileProblem) && !(e instanceof Error && /ledger/.test(e.message))) throw e;
        const why = e.message.replace(/; is wallet-sim running there\?$/, '');
        console.error(`wallet-sim reconcile: cannot read the ledger: ${why}; is wallet-sim running at ${url}?`);
        process.exitCode = 2;
        return;
      }
      const result = reconcile(ledger.rows, records, ledger);
      console.log(formatReconciliation(result, url));
      if (o.junit) {
        try {
          writeFileSync(o.junit, reconciliationJUnit(result, url, (performance.now() - started) / 1000));
        } catch (e) {
          console.error(`wallet-sim reconcile: cannot write ${o.junit}: ${(e as Error).message}`);
          process.exitCode = 2;
          return;
        }
      }
      process.exitCode = result.mismatches.length ? 1 : 0;
    });
}
