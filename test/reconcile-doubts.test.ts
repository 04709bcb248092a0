// What proxy mode's reconcile reads from the journal: which bets and settlements the wallet under
// test may have applied outside the ledger (src/reconcile/doubts.ts), and how the reconciler lists
// them. Tables, no HTTP; test/proxy/reconcile.test.ts runs it against a real wallet behind a proxy.
import t from 'tap';
import type { JournalEntry } from '../src/core/exchange.js';
import type { LedgerEntry } from '../src/ledger/ledger-entry.js';
import { DoubtReader } from '../src/reconcile/doubts.js';
import type { ProviderRecord } from '../src/reconcile/provider-file.js';
import { Reconciler } from '../src/reconcile/reconcile.js';

let ids = 0;
type Up = NonNullable<JournalEntry['upstream']>;

/** A journal entry of a forwarded callback: `up` is what the upstream leg holds. */
function entry(tx: string, up: Partial<Up>, more: Partial<JournalEntry> = {}): JournalEntry {
  return {
    id: ++ids,
    received_at: new Date(Date.UTC(2026, 11, 2, 10, 0, ids)).toISOString(),
    duration_ms: 1,
    transaction_id: tx,
    event_type: 'bet',
    user_id: 'p1',
    request: { method: 'POST', url: '/callback', headers: {}, body: { data: { game_no: 'G1' } } },
    reply: { status: 200, headers: {}, body: {}, dropped: false },
    replayed: false,
    findings: [],
    upstream: { url: 'http://wallet.test/cb', forwarded: true, ...up },
    ...more,
  };
}
const answered = (code: string, balance?: number, status = 200): Partial<Up> => ({
  status,
  body: { code, ...(balance !== undefined && { latest_balance: balance }) },
});
const noReply: Partial<Up> = { error: 'no reply within 300 ms' };

const doubtsOf = (entries: JournalEntry[]) => {
  const reader = new DoubtReader();
  for (const e of entries) reader.add(e);
  return reader.doubts();
};

t.test('which transactions are doubts', async (t) => {
  const cases: [string, JournalEntry[], RegExp | undefined][] = [
    ['booked: R0 with a balance', [entry('a', answered('R0', 990))], undefined],
    ['no reply', [entry('a', noReply)], /no reply from the wallet under test \(journal #\d+: no reply within 300 ms\)/],
    ['no reply, then booked on the resend (the ledger has it)', [entry('a', noReply), entry('a', answered('R0', 990))], /no reply/],
    ['no reply, then refused on the resend', [entry('a', noReply), entry('a', answered('R3', 990))], undefined],
    ['refused, then no reply', [entry('a', answered('R4', 5)), entry('a', noReply)], undefined],
    ['HTTP 500', [entry('a', { status: 500, body: 'oops' })], /answered HTTP 500 without a protocol code/],
    ['a lowercase code', [entry('a', answered('r0', 990))], /HTTP 200 without a protocol code/],
    ['R1', [entry('a', answered('R1', 990))], /answered R1, outcome unknown/],
    ['R0 under other credentials', [entry('a', answered('R0', 990), { findings: [f('CREDENTIALS_WRONG')] })], /other credentials/],
    [
      'R0 under other credentials, then refused',
      [entry('a', answered('R0', 990), { findings: [f('CREDENTIALS_WRONG')] }), entry('a', answered('R2'))],
      /other credentials/,
    ],
    [
      'R0 to an invalid callback',
      [entry('a', answered('R0', 990), { findings: [f('TOTALS_MISMATCH')] })],
      /schemas refuse \(journal #\d+: TOTALS_MISMATCH\)/,
    ],
    ['R0 to a callback with a warning only: booked', [entry('a', answered('R0', 990), { findings: [f('SLOW', 'warning')] })], undefined],
    ['R0 without a balance', [entry('a', answered('R0'))], /without a latest_balance number/],
    ['a login: no money', [entry('a', noReply, { event_type: 'login' })], undefined],
    ["a rule's forced code: nothing went upstream", [entry('a', { forwarded: false })], undefined],
    ['not proxied', [{ ...entry('a', {}), upstream: undefined }], undefined],
  ];
  for (const [name, entries, why] of cases) {
    const d = doubtsOf(entries).get('a');
    if (why === undefined) t.equal(d, undefined, name);
    else t.match(d, { transaction_id: 'a', event_type: entries[0]!.event_type, user_id: 'p1', game_no: 'G1', why }, name);
  }
});

function f(code: string, severity: 'error' | 'warning' = 'error') {
  return { code, severity, message: code } as JournalEntry['findings'][number];
}

t.test('the reconciler lists a doubt as unresolved, never as missing nor as agreement', async (t) => {
  const doubts = doubtsOf([
    entry('late', noReply),
    entry('typo', answered('R0', 980), { findings: [f('CREDENTIALS_WRONG')] }),
    entry('quiet', noReply),
  ]);
  const booked: LedgerEntry = {
    transaction_id: 'b',
    event_type: 'bet',
    user_id: 'p1',
    game_no: 'G2',
    currency: 'USD',
    amount: '10',
    balance_after: '990',
    applied_at: '2026-12-02T10:00:00.000Z',
    round_status: 'open',
  } as LedgerEntry;
  const rec = (tx: string, status: ProviderRecord['status'], line: number): ProviderRecord =>
    ({ transaction_id: tx, event_type: 'bet', user_id: 'p1', game_no: 'G1', amount: '10', status, line }) as unknown as ProviderRecord;

  const r = new Reconciler([booked], { complete: true }, undefined, doubts);
  r.add(rec('late', 'failed', 2));
  r.add(rec('typo', 'ok', 3));
  r.add({ ...rec('b', 'ok', 4), game_no: 'G2' });
  r.add(rec('gone', 'ok', 5));
  const out = r.finish();
  t.same(
    out.mismatches.map((d) => [d.kind, d.transaction_id]),
    [['MISSING_IN_WALLET', 'gone']],
    'a record of a transaction the journal knows nothing of is still missing',
  );
  t.same(
    out.unresolved.map((d) => d.transaction_id),
    ['late', 'typo', 'quiet'],
    'the doubts named by a record, then the one no record named',
  );
  t.match(out.unresolved[0]!.reason, /^line 2: the provider counts it failed; no reply .*money moved without the provider knowing/);
  t.match(out.unresolved[1]!.reason, /^line 3: the provider counts it done; it is not in the ledger: .*other credentials.*books/);
  t.match(out.unresolved[2]!.reason, /^the provider has no record of it; no reply/);

  const one = new Reconciler([booked], { complete: true }, 'p2', doubts).finish();
  t.same(one.unresolved, [], "--user: another player's doubts are not listed");
  const without = new Reconciler([booked], { complete: true });
  without.add(rec('late', 'failed', 2));
  t.same(without.finish().unresolved, [], "wallet-sim's own wallet: a failed record it never applied is agreement");
});
