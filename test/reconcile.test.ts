// The comparison itself, as a table (no HTTP): each kind, unresolved rows, the ledger's horizon.
import t from 'tap';
import type { LedgerEntry } from '../src/ledger/ledger-entry.js';
import { parseProviderRecords } from '../src/reconcile/provider-file.js';
import { reconcile } from '../src/reconcile/reconcile.js';

const row = (id: string, amount: string, round: 'open' | 'settled' = 'open', at = '2026-01-01T00:00:10.000Z'): LedgerEntry => ({
  transaction_id: id,
  event_type: 'bet',
  user_id: 'p',
  game_no: `G-${id}`,
  currency: 'USD',
  amount,
  balance_after: '0',
  applied_at: at,
  round_status: round,
});
const provider = (lines: string[]) =>
  parseProviderRecords(['transaction_id,event_type,user_id,game_no,amount,status,round_status,timestamp', ...lines].join('\n'), 'csv');

t.test('each provider record against the ledger', async (t) => {
  const ledger = [row('a', '10.5'), row('b', '3', 'settled')];
  const cases: [string, string[], string[], string[]][] = [
    ['an exact match (10.50 = 10.5)', ['a,bet,p,G-a,10.50,ok,,', 'b,bet,p,G-b,3,ok,settled,'], [], []],
    ['missing in the wallet', ['a,bet,p,G-a,10.5,ok,,', 'b,bet,p,G-b,3,ok,,', 'c,bet,p,G-c,1,ok,,'], ['MISSING_IN_WALLET c'], []],
    ['unknown to the provider: no record', ['a,bet,p,G-a,10.5,ok,,'], ['UNKNOWN_TO_PROVIDER b'], []],
    ['unknown to the provider: failed', ['a,bet,p,G-a,10.5,failed,,', 'b,bet,p,G-b,3,ok,,'], ['UNKNOWN_TO_PROVIDER a'], []],
    ['amount', ['a,bet,p,G-a,10.51,ok,,', 'b,bet,p,G-b,3,ok,,'], ['AMOUNT_MISMATCH a'], []],
    ['round state only where given', ['a,bet,p,G-a,10.5,ok,settled,', 'b,bet,p,G-b,3,ok,,'], ['ROUND_STATE_MISMATCH a'], []],
    [
      'pending, never applied: unresolved',
      ['a,bet,p,G-a,10.5,ok,,', 'b,bet,p,G-b,3,ok,,', 'c,bet,p,G-c,1,pending,,'],
      [],
      ['UNRESOLVED c'],
    ],
    ['failed, never applied: agreement', ['a,bet,p,G-a,10.5,ok,,', 'b,bet,p,G-b,3,ok,,', 'c,bet,p,G-c,1,failed,,'], [], []],
  ];
  for (const [label, lines, mismatches, unresolved] of cases) {
    const r = reconcile(ledger, provider(lines), { complete: true });
    t.same(
      r.mismatches.map((d) => `${d.kind} ${d.transaction_id}`),
      mismatches,
      label,
    );
    t.same(
      r.unresolved.map((d) => `${d.kind} ${d.transaction_id}`),
      unresolved,
      label,
    );
  }
});

t.test("a record older than the ledger's horizon is unresolved; a newer one is missing", async (t) => {
  const from = Date.parse('2026-01-01T00:00:10.000Z');
  const r = reconcile(
    [row('kept', '1')],
    provider([
      'kept,bet,p,G-kept,1,ok,,',
      'old,bet,p,G-old,1,ok,,1767225600',
      'unknown-time,bet,p,G-u,1,ok,,',
      'new,bet,p,G-new,1,ok,,2026-01-01T00:01:00Z',
    ]),
    { complete: false, completeFrom: from },
  );
  t.same(
    r.unresolved.map((d) => d.transaction_id),
    ['old', 'unknown-time'],
  );
  t.same(
    r.mismatches.map((d) => `${d.kind} ${d.transaction_id}`),
    ['MISSING_IN_WALLET new'],
  );
});
