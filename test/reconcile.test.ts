// The comparison itself, as a table (no HTTP): each kind, unresolved rows, the ledger's horizon.
import t from 'tap';
import type { LedgerEntry } from '../src/ledger/ledger-entry.js';
import { neutralisedField, unneutralised } from '../src/ledger/format.js';
import { CsvParser, CsvRecords, type Located, parseCsv } from '../src/reconcile/csv.js';
import { firstInvalid, StrictUtf8 } from '../src/reconcile/decode.js';
import { parseProviderRecords } from '../src/reconcile/provider-file.js';
import { formatReconciliation, reconciliationJUnit } from '../src/reconcile/format.js';
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

t.test('every field both sides have is compared: another player, round, event type or currency is a FIELD_MISMATCH', async (t) => {
  const ledger = [row('a', '10.5')];
  const withCurrency = (lines: string[]) =>
    parseProviderRecords(['transaction_id,event_type,user_id,game_no,amount,status,currency', ...lines].join('\n'), 'csv');
  const cases: [string, string, string[]][] = [
    ['the same', 'a,bet,p,G-a,10.5,ok,USD', []],
    ['no currency given: not compared', 'a,bet,p,G-a,10.5,ok,', []],
    ['another player', 'a,bet,q,G-a,10.5,ok,USD', ['FIELD_MISMATCH a: user_id "p" in the wallet, "q" at the provider']],
    ['another round', 'a,bet,p,G-b,10.5,ok,USD', ['FIELD_MISMATCH a: game_no "G-a" in the wallet, "G-b" at the provider']],
    ['another event', 'a,bet_result,p,G-a,10.5,ok,USD', ['FIELD_MISMATCH a: event_type "bet" in the wallet, "bet_result" at the provider']],
    ['another currency', 'a,bet,p,G-a,10.5,ok,EUR', ['FIELD_MISMATCH a: currency "USD" in the wallet, "EUR" at the provider']],
    [
      'another player and amount: both kinds',
      'a,bet,q,G-a,1,ok,USD',
      ['FIELD_MISMATCH a: user_id "p" in the wallet, "q" at the provider', 'AMOUNT_MISMATCH a: wallet 10.5, provider 1'],
    ],
  ];
  for (const [label, line, expected] of cases) {
    const r = reconcile(ledger, withCurrency([line]), { complete: true });
    t.same(
      r.mismatches.map((d) => `${d.kind} ${d.transaction_id}: ${d.reason.replace(/^line \d+: /, '')}`),
      expected,
      label,
    );
  }
});

t.test('the CSV parser gives the same records and places however the text is cut into chunks', async (t) => {
  const text =
    '\ufefftransaction_id,user_id,note\r\n' + '"t,1","a ""quoted"" id",x\r\n' + '\r\n' + 't2,"\'=SUM(A1)","two\nlines"\n' + 't3,u,last';
  const whole = parseCsv(text);
  const at = (rows: Located[]) => rows.map((r) => ['transaction_id', 'user_id', 'note'].map((c) => r.cells.get(c)));
  for (const size of [1, 2, 3, 5, 7, 64]) {
    const parser = new CsvParser();
    const records = new CsvRecords();
    const rows: Located[] = [];
    for (let i = 0; i < text.length; i += size) rows.push(...records.take(parser.feed(text.slice(i, i + size))));
    rows.push(...records.take(parser.end()));
    t.same(at(rows), at(whole.rows), `chunks of ${size}`);
  }
  t.same(
    at(whole.rows).map((r) => r.map((c) => [c!.value, c!.line, c!.column, c!.quoted])),
    [
      [
        ['t,1', 2, 1, true],
        ['a "quoted" id', 2, 7, true],
        ['x', 2, 25, false],
      ],
      [
        ['t2', 4, 1, false],
        ["'=SUM(A1)", 4, 4, true],
        ['two\nlines', 4, 16, true],
      ],
      [
        ['t3', 6, 1, false],
        ['u', 6, 4, false],
        ['last', 6, 6, false],
      ],
    ],
  );
  t.equal(unneutralised("'=SUM(A1)", true), '=SUM(A1)', 'our escape, undone');
  t.equal(unneutralised("'=SUM(A1)", false), "'=SUM(A1)", 'unquoted: text');
  t.equal(unneutralised("'abc", true), "'abc", "a ' before anything else: text");
  t.equal(unneutralised("''abc", true), "'abc", "a ' escaped");
  t.equal(neutralisedField("'abc"), `"''abc"`);
  for (const s of ['=1+1', '+1', '-1', '@x', '\tx', '\rx', "'x", 'plain', 'a,b', '"q"'])
    t.equal(unneutralised(...quotedValue(neutralisedField(s))), s, `${JSON.stringify(s)} round-trips`);
});

t.test('strict UTF-8 however the bytes are cut; the first bad byte named by line and column', async (t) => {
  const bytes = Buffer.from('id,name\r\nt1,joão 😀\r\nt2,x\r\n');
  for (let cut = 1; cut < bytes.length; cut++) {
    const d = new StrictUtf8('f.csv');
    t.equal(d.decode(bytes.subarray(0, cut)) + d.decode(bytes.subarray(cut)) + d.end(), bytes.toString(), `cut at byte ${cut}`);
  }
  const latin1 = Buffer.from('id,name\r\nt1,jo\xe3o\r\n', 'latin1');
  for (const cut of [1, 14, 15, latin1.length]) {
    const d = new StrictUtf8('f.csv');
    t.throws(
      () => {
        d.decode(latin1.subarray(0, cut));
        d.decode(latin1.subarray(cut));
        d.end();
      },
      { message: /^line 2, column 6: byte 0xE3 is not UTF-8 \(a Latin-1 \/ Windows-1252 file\?\)/ },
      `Latin-1, cut at ${cut}`,
    );
  }
  const d = new StrictUtf8('f.csv');
  t.throws(() => {
    d.decode(Buffer.from([0x61, 0xe2, 0x82]));
    d.end();
  }, /the file ends inside a UTF-8 sequence/);
  t.equal(firstInvalid(Buffer.from([0xed, 0xa0, 0x80])), 0, 'a surrogate is not UTF-8');
  t.equal(firstInvalid(Buffer.from([0xc0, 0x80])), 0, 'an overlong form is not UTF-8');
});

/** A CSV cell as written, back to its value and whether it was quoted. */
function quotedValue(cell: string): [string, boolean] {
  return cell.startsWith('"') ? [cell.slice(1, -1).replace(/""/g, '"'), true] : [cell, false];
}

t.test('UNKNOWN_TO_PROVIDER advises resending, and escalating what a correct client gave up on at max_attempts', async (t) => {
  const r = reconcile([row('a', '10')], [], { complete: true });
  const text = formatReconciliation(r, 'u');
  t.match(text, /UNKNOWN_TO_PROVIDER \(1\): .*retry a lost or failed reply under the same transaction_id until it gets an answer/);
  t.match(text, /after max_attempts, escalate it to the operator \(it may have been applied\)/, 'giving up there is right: escalate');
  t.match(reconciliationJUnit(r, 'u', 0), /message="1 transaction\(s\): .*escalate it to the operator/, 'the JUnit message too');
});
