import type { LedgerEntry } from '../ledger/ledger-entry.js';
import { type Doubt, DoubtReader } from '../reconcile/doubts.js';
import type { AdminClient } from '../verify/admin-client.js';

/** Entries a journal page holds: a page is a few hundred KB, and only the doubts are kept. */
const PAGE = 500;

/** What proxy mode adds to a reconciliation: the doubts, and a note on how far back they were looked for. */
export interface WalletDoubts {
  upstream: string;
  doubts: Map<string, Doubt>;
  /** Set when the journal does not reach back to the ledger's first row (earlier doubts are not known); '' when it is empty. */
  journalFrom?: string;
}

/**
 * In proxy mode (the report names an upstream), the journal read forward page by page for what the
 * wallet under test may have applied outside the ledger; undefined for wallet-sim's own wallet,
 * whose ledger is its books.
 */
export async function walletDoubts(client: AdminClient, ledger: readonly LedgerEntry[]): Promise<WalletDoubts | undefined> {
  const { upstream } = await client.report();
  if (upstream === undefined) return undefined;
  const reader = new DoubtReader();
  for (let after = 0; ;) {
    const page = await client.journal(new URLSearchParams({ after: String(after), limit: String(PAGE) }));
    for (const e of page) reader.add(e);
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.id;
  }
  const first = ledger.reduce<string | undefined>((min, w) => (min === undefined || w.applied_at < min ? w.applied_at : min), undefined);
  const short = first !== undefined && (reader.oldest === undefined || reader.oldest > first);
  return { upstream, doubts: reader.doubts(), ...(short && { journalFrom: reader.oldest ?? '' }) };
}
