import { Command, Option } from 'commander';
import { LEDGER_COLUMNS, LEDGER_CUT_LINE, unneutralised } from '../ledger/format.js';
import type { LedgerEntry } from '../ledger/ledger-entry.js';
import { FileProblem, parseCsv } from '../reconcile/csv.js';
import { formatReconciliation, reconciliationJUnit } from '../reconcile/format.js';
import { ProviderFileError, readProviderFile } from '../reconcile/provider-file.js';
import { Reconciler } from '../reconcile/reconcile.js';
import { AdminClient, AdminError } from '../verify/admin-client.js';
import { terminalText } from '../text/terminal-text.js';
import {
  adminTokenOf,
  adminTokenOption,
  tokenFileOption,
  junitOption,
  markRequired,
  usageErrorsExit2,
  simulatorUrlOption,
  timeoutOption,
} from './options.js';
import { checkWritable, OutputFileError, writeOutput } from './output-file.js';
import { walletDoubts, type WalletDoubts } from './reconcile-doubts.js';

interface ReconcileOptions {
  url: string;
  provider: string;
  user?: string;
  junit?: string;
  adminToken?: string;
  /** --token-file, read: the token itself. */
  tokenFile?: string;
  timeout: number;
}

/** The ledger's CSV (our own format) as rows: cells escaped against spreadsheet formulas read back as the text itself. */
function ledgerRows(csv: string): LedgerEntry[] {
  if (LEDGER_CUT_LINE.test(csv))
    throw new Error('the ledger was cut short: the wallet was reset while it was read (POST /admin/reset); run reconcile again');
  const { header, rows } = parseCsv(csv);
  const names = header.map((h) => h.value);
  if (LEDGER_COLUMNS.some((c) => !names.includes(c))) throw new Error(`the ledger's columns are ${names.join(',')}; is this a wallet-sim?`);
  return rows.map(
    (r) =>
      Object.fromEntries(
        LEDGER_COLUMNS.map((c) => [c, unneutralised(r.cells.get(c)!.value, r.cells.get(c)!.quoted === true)]),
      ) as unknown as LedgerEntry,
  );
}

const PLAYERS_NAMED = 5;

/**
 * Why `--user` cannot be reconciled, when the wallet has no row and no player of that user_id:
 * nothing would be compared and it would exit 0, so a player misspelt in CI would pass. Said with
 * the players the wallet does hold. undefined when the player is known (even with no row yet).
 */
async function unknownPlayer(client: AdminClient, user: string): Promise<string | undefined> {
  if (await client.player(user)) return undefined;
  const ids = await client.playerIds();
  const named =
    ids.slice(0, PLAYERS_NAMED).map(terminalText).join(', ') +
    (ids.length > PLAYERS_NAMED ? ` and ${ids.length - PLAYERS_NAMED} more` : '');
  return ids.length
    ? `--user ${terminalText(user)}: the wallet has no player of that user_id, so there is nothing to compare; ` +
        `it has ${named}: give one of them, or leave --user out to reconcile every player`
    : `--user ${terminalText(user)}: the wallet has no player yet: play a session first, or leave --user out`;
}

export function reconcileCommand(): Command {
  return usageErrorsExit2(markRequired(new Command('reconcile')))
    .description(
      "Compare the wallet's ledger (GET /admin/ledger) with the provider's own records (CSV or JSON, docs/reconcile.md) and list every disagreement; exit 0 when they agree, 1 when not, 2 when either cannot be read",
    )
    .addOption(simulatorUrlOption())
    .addOption(
      new Option(
        '--provider <file>',
        "the provider's records: file.csv or file.json (the format follows the extension; UTF-8)",
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--user <id>',
        "only this player: the wallet's rows of that user_id, and the provider's records of that user_id " +
          '(or of a transaction the wallet applied for that player)',
      ),
    )
    .addOption(junitOption('also write JUnit XML (one test case per mismatch kind)'))
    .addOption(
      timeoutOption(
        'how long to wait for the ledger to begin, and for each stall in it (no byte for this long); a long ledger that keeps coming is never cut',
      ),
    )
    .addOption(adminTokenOption())
    .addOption(tokenFileOption())
    .action(async (o: ReconcileOptions) => {
      const started = performance.now();
      const url = o.url.replace(/\/+$/, '');
      const fail = (message: string) => {
        console.error(`wallet-sim reconcile: ${message}`);
        process.exitCode = 2;
      };
      let ledger: { rows: LedgerEntry[]; complete: boolean; completeFrom?: number };
      let proxy: WalletDoubts | undefined;
      // (--junit is checked before the ledger is fetched: a result is not lost to a mistyped directory)
      try {
        if (o.junit !== undefined) checkWritable(o.junit, '--junit');
      } catch (e) {
        if (!(e instanceof OutputFileError)) throw e;
        return fail(`${e.message}; nothing was read`);
      }
      if (o.user === '') return fail('--user needs a user_id (leave --user out to reconcile every player); nothing was read');
      try {
        const client = new AdminClient(url, adminTokenOf(o), o.timeout);
        // Every player's rows, --user or not: a record of the player booked on a transaction the wallet
        // applied for another is a FIELD_MISMATCH on user_id, which the player's rows alone would call missing.
        const { csv, complete, completeFrom } = await client.ledgerCsv();
        ledger = { rows: ledgerRows(csv), complete, completeFrom };
        const unknown =
          o.user !== undefined && !ledger.rows.some((w) => w.user_id === o.user) ? await unknownPlayer(client, o.user) : undefined;
        if (unknown) return fail(unknown);
        try {
          proxy = await walletDoubts(client, ledger.rows);
        } catch (e) {
          if (!(e instanceof AdminError)) throw e;
          return fail(
            `cannot tell what the wallet under test may have applied outside the ledger (GET /admin/report, then the journal): ${e.message}`,
          );
        }
      } catch (e) {
        if (!(e instanceof AdminError) && !(e instanceof FileProblem) && !(e instanceof Error && /ledger/.test(e.message))) throw e;
        // Asked only when nothing answered: a server that answered (401, 403…) is running, its answer says what to do.
        return fail(
          `cannot read the ledger: ${e.message.replace(/; is wallet-sim running there\?$/, `; is wallet-sim running at ${url}?`)}`,
        );
      }
      // The provider's records are streamed through the comparison: memory holds the ledger, never the file.
      const reconciler = new Reconciler(ledger.rows, ledger, o.user, proxy?.doubts);
      try {
        await readProviderFile(o.provider, (r) => reconciler.add(r));
      } catch (e) {
        if (!(e instanceof ProviderFileError)) throw e;
        return fail(e.message);
      }
      const result = reconciler.finish();
      if (proxy) result.proxy = { upstream: proxy.upstream, ...(proxy.journalFrom !== undefined && { journalFrom: proxy.journalFrom }) };
      console.log(formatReconciliation(result, url));
      if (o.junit) {
        try {
          writeOutput(o.junit, reconciliationJUnit(result, url, (performance.now() - started) / 1000), '--junit');
        } catch (e) {
          if (!(e instanceof OutputFileError)) throw e;
          return fail(e.message);
        }
      }
      process.exitCode = result.mismatches.length ? 1 : 0;
    });
}
