// The provider's amounts as its files write them, as a table: a JSON number is read exactly from its
// text, an exponent too (`1E+3` is what Java's BigDecimal.toString() writes, `0e0` a zero); a CSV
// cell or a JSON string is plain decimal digits (a spreadsheet's scientific notation is a rounded
// display, not the amount); negatives and what is not a number are refused with line and column.
import t from 'tap';
import type { LedgerEntry } from '../src/ledger/ledger-entry.js';
import { FileProblem } from '../src/reconcile/csv.js';
import { parseProviderRecords } from '../src/reconcile/provider-file.js';
import { reconcile } from '../src/reconcile/reconcile.js';

const json = (amount: string) =>
  `[{"transaction_id":"t1","event_type":"bet","user_id":"p","game_no":"G1","amount":${amount},"status":"ok"}]`;
const csv = (amount: string) => `transaction_id,event_type,user_id,game_no,amount,status\nt1,bet,p,G1,${amount},ok\n`;

/** The amount read, or the reason the file is refused. */
function read(format: 'json' | 'csv', amount: string): { amount: string } | { refused: string } {
  try {
    return { amount: parseProviderRecords((format === 'json' ? json : csv)(amount), format)[0]!.amount };
  } catch (e) {
    if (e instanceof FileProblem) return { refused: e.message };
    throw e;
  }
}

t.test('amounts read exactly, or refused with the spot to fix', async (t) => {
  const thirty = '1' + '0'.repeat(29);
  const rows: [string, 'json' | 'csv', string, { amount: string } | { refused: RegExp }][] = [
    ['a JSON number', 'json', '10.10', { amount: '10.10' }],
    ['a zero with an exponent', 'json', '0e0', { amount: '0' }],
    ["BigDecimal.toString()'s form", 'json', '1E+3', { amount: '1000' }],
    ['a fraction and an exponent', 'json', '1.5e2', { amount: '150' }],
    ['a negative exponent', 'json', '12.5E-1', { amount: '1.25' }],
    ['a cent', 'json', '1e-2', { amount: '0.01' }],
    ['digits that stay exact (no binary float)', 'json', '1234567890123456789.01e-2', { amount: '12345678901234567.8901' }],
    ['a fraction shifted into the integer', 'json', '0.1e1', { amount: '1' }],
    ['30 integer digits, the most', 'json', '1e29', { amount: thirty }],
    ['30 fraction digits, the most', 'json', '1e-30', { amount: `0.${'0'.repeat(29)}1` }],
    ['31 integer digits', 'json', '1e30', { refused: /amount "1e30" is not a decimal number >= 0/ }],
    ['31 fraction digits', 'json', '1e-31', { refused: /amount "1e-31" is not a decimal number >= 0/ }],
    ['an exponent beyond any amount', 'json', '1e999999999999', { refused: /amount "1e999999999999" is not a decimal number >= 0/ }],
    ['a negative', 'json', '-1e3', { refused: /amount "-1e3" is not a decimal number >= 0/ }],
    ['a negative zero', 'json', '-0e0', { refused: /amount "-0e0" is not a decimal number >= 0/ }],
    ['NaN is not JSON', 'json', 'NaN', { refused: /not a JSON value: "NaN/ }],
    ['Infinity is not JSON', 'json', 'Infinity', { refused: /not a JSON value: "Infinity/ }],
    ['a JSON string: plain digits', 'json', '"12.50"', { amount: '12.50' }],
    ['a JSON string with an exponent', 'json', '"1E+3"', { refused: /amount "1E\+3" is not a decimal number >= 0 \(.*no exponent/ }],
    ['a CSV cell: plain digits', 'csv', '12.50', { amount: '12.50' }],
    ['a CSV cell with an exponent', 'csv', '1e3', { refused: /amount "1e3" is not a decimal number >= 0 \(.*no exponent/ }],
    ['a CSV cell with a comma', 'csv', '"12,50"', { refused: /amount "12,50" is not a decimal number >= 0/ }],
  ];
  for (const [name, format, amount, want] of rows) {
    const got = read(format, amount);
    if ('amount' in want) t.same(got, want, `${name}: ${amount}`);
    else t.match('refused' in got ? got.refused : `read as ${got.amount}`, want.refused, `${name}: ${amount}`);
  }
});

t.test('an exponent-form amount reconciles against the ledger as the amount it is', async (t) => {
  const entry = (id: string, amount: string): LedgerEntry => ({
    transaction_id: id,
    event_type: 'bet',
    user_id: 'p',
    game_no: `G-${id}`,
    currency: 'USD',
    amount,
    balance_after: '0',
    applied_at: '2026-01-01T00:00:10.000Z',
    round_status: 'open',
  });
  const record = (id: string, amount: string) =>
    `{"transaction_id":"${id}","event_type":"bet","user_id":"p","game_no":"G-${id}","amount":${amount},"status":"ok"}`;
  const file = `[${[record('a', '1E+3'), record('b', '0e0'), record('c', '1.25e1')].join(',')}]`;
  const r = reconcile([entry('a', '1000'), entry('b', '0'), entry('c', '12.6')], parseProviderRecords(file, 'json'), { complete: true });
  t.same(
    r.mismatches.map((d) => `${d.kind} ${d.transaction_id}: ${d.reason}`),
    ['AMOUNT_MISMATCH c: line 1: wallet 12.6, provider 12.5'],
  );
});
