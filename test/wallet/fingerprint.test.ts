// The idempotency fingerprint is persisted (the file store and Redis keep it per transaction): the
// same request must give the same fingerprint in every version and after every restart, or a replay
// after an upgrade would be refused as a reused transaction_id. Two formats are pinned here: the
// current one (`~` and a 64-bit hash) and the sha256 one older versions wrote, which decide() still
// computes for their records.
import t from 'tap';
import type { CallbackRequest } from '../../src/protocol/types.generated.js';
import { legacyFingerprintOf } from '../../src/wallet/decide.js';
import { fingerprintOf } from '../../src/kernel/digest.js';

const login = { transaction_id: 't1', event_type: 'login', timestamp: 1700000000, feedback_data: 'fb', user_id: 'alice' };
const bet = {
  transaction_id: 't2',
  event_type: 'bet',
  timestamp: 1,
  feedback_data: 'fb',
  user_id: 'joueur-é-🎲',
  data: {
    currency: 'USD',
    game_type: 'BAC',
    table_no: 'T1',
    game_no: 'g1',
    total_bet_amount: 2.5,
    bets: [
      { bet_index: '1', bet_type: 'P', bet_amount: 1.5 },
      { bet_index: '2', bet_type: 'T', bet_amount: 1 },
    ],
  },
};
const odd = { user_id: 'u\ud800', data: { z: 1, a: [3, { y: null, b: -0 }] }, event_type: 'bet_result', transaction_id: 'x', timestamp: 5 };

// [name, request, current fingerprint, the one older versions wrote (the first 16-character version)]
const cases: [string, object, string, string][] = [
  ['a login', login, '~2ipef1t1j3lpa8', 'eJgWeozdtPeVsCov'],
  ['a bet, non-ASCII user', bet, '~1rdvds42foucoj', 'l8OJYWhZIAMmSPO3'],
  ['keys out of order, a lone surrogate, -0', odd, '~3u2ghif2othrts', 'gkUSLlQi9EK-6lqe'],
];

t.test('fingerprints are stable across versions and restarts', async (t) => {
  for (const [name, req, current, legacy] of cases) {
    for (const [format, fingerprint, expected] of [
      ['current', fingerprintOf, current],
      ['legacy', legacyFingerprintOf, legacy],
    ] as const) {
      t.equal(fingerprint(req as CallbackRequest), expected, `${name} (${format})`);
      t.equal(fingerprint({ ...req, timestamp: 42 } as CallbackRequest), expected, `${name} (${format}): the timestamp is not part of it`);
    }
  }
});

t.test('the current format: `~` (never a base64url character), then 14 base-32 digits', async (t) => {
  for (const [name, req] of cases) t.match(fingerprintOf(req), /^~[0-9a-v]{14}$/, name);
});

const data = bet.data;
const reversed = (o: object) => Object.fromEntries(Object.entries(o).reverse());
const without = (o: object, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
const [first, second] = data.bets as [object, object];
/** [what, a body that must fingerprint the same as `bet`] */
const same: [string, object][] = [
  ['the same body', structuredClone(bet)],
  ['keys in another order', reversed({ ...bet, data: reversed(data) })],
  ['nested keys in another order', { ...bet, data: { ...data, bets: [{ bet_amount: 1.5, bet_type: 'P', bet_index: '1' }, second] } }],
  ['another timestamp', { ...bet, timestamp: 1763769612 }],
  ['no timestamp', without(bet, 'timestamp')],
  ['2.50 for 2.5 (one JSON number)', JSON.parse(JSON.stringify(bet).replace('"total_bet_amount":2.5', '"total_bet_amount":2.50'))],
  ['1.0 for 1 (one JSON number)', JSON.parse(JSON.stringify(bet).replace('"bet_amount":1}', '"bet_amount":1.0}'))],
  ['a member set to undefined (JSON leaves it out)', { ...bet, extra: undefined }],
];
/** [what, a body that must fingerprint differently from `bet`] */
const different: [string, object][] = [
  ['another amount: 2.51 for 2.5', { ...bet, data: { ...data, total_bet_amount: 2.51 } }],
  ['an amount one ulp away', { ...bet, data: { ...data, total_bet_amount: 2.5000000000000004 } }],
  ['a string for a number: "1" for 1', { ...bet, data: { ...data, bets: [first, { ...second, bet_amount: '1' }] } }],
  ['a number for a string: 1 for "1"', { ...bet, data: { ...data, bets: [{ ...first, bet_index: 1 }, second] } }],
  ['the bets in another order', { ...bet, data: { ...data, bets: [second, first] } }],
  ['an extra key', { ...bet, extra: 'x' }],
  ['an extra nested key', { ...bet, data: { ...data, extra: 'x' } }],
  ['null for a missing key', { ...bet, extra: null }],
  ['null for a value', { ...bet, feedback_data: null }],
  ['a missing key', without(bet, 'feedback_data')],
  ['an empty string for a missing key', { ...bet, extra: '' }],
  ['another user', { ...bet, user_id: 'joueur-e-🎲' }],
  ['another transaction_id', { ...bet, transaction_id: 't3' }],
  ['a value moved to a neighbouring key', { ...bet, feedback_data: 'f', user_id: `b${bet.user_id}` }],
  ['a key and value merged: {"a":"b,c"} against {"a":"b","c":…}', { ...bet, feedback_data: 'fb","table_no":"T1' }],
  ['an empty object for the bets', { ...bet, data: { ...data, bets: {} } }],
  ['an empty array for the bets', { ...bet, data: { ...data, bets: [] } }],
  ['an array of one for the value', { ...bet, feedback_data: ['fb'] }],
  ['a bet dropped', { ...bet, data: { ...data, bets: [first] } }],
  ['a bet repeated', { ...bet, data: { ...data, bets: [first, second, second] } }],
  ['a top-level key moved into data', { ...without(bet, 'feedback_data'), data: { ...data, feedback_data: 'fb' } }],
  ['a nested timestamp (only the top-level one is left out)', { ...bet, data: { ...data, timestamp: 1 } }],
];

t.test('equal as JSON (timestamp aside): the same fingerprint; any other change: another', async (t) => {
  const expected = fingerprintOf(bet);
  for (const [name, body] of same) t.equal(fingerprintOf(body), expected, `same: ${name}`);
  for (const [name, body] of different) t.not(fingerprintOf(body), expected, `different: ${name}`);
  const all = different.map(([, body]) => fingerprintOf(body));
  t.equal(new Set(all).size, all.length, 'and the changed bodies differ from each other');
});

t.test('ambiguities a flat encoding would have: strings are delimited, types are tagged', async (t) => {
  const pairs: [string, object, object][] = [
    ['split between key and value', { ab: 'c' }, { a: 'bc' }],
    ['split between two strings of an array', { a: ['ab', 'c'] }, { a: ['a', 'bc'] }],
    ['a string that reads as an array', { a: ['b', 'c'] }, { a: '["b","c"]' }],
    ['a string that reads as an object', { a: { b: 1 } }, { a: '{"b":1}' }],
    ['nesting moved', { a: [[1], 2] }, { a: [[1, 2]] }],
    ['an empty key', { '': 'a' }, { a: '' }],
    ['the text "null" for null', { a: null }, { a: 'null' }],
    ['a large integer for its text', { a: 1e21 }, { a: '1e+21' }],
    ['an even number of characters against one more', { a: 'xy' }, { a: 'xy\u0000' }],
  ];
  for (const [name, a, b] of pairs) t.not(fingerprintOf(a), fingerprintOf(b), name);
  const values = [null, false, true, 0, 1, '', '0', 'false', [], {}, [null], { '': null }];
  const each = values.map((a) => fingerprintOf({ a }));
  t.equal(new Set(each).size, values.length, `each of ${JSON.stringify(values)} has a fingerprint of its own`);
});

t.test('numbers are compared as JSON writes them', async (t) => {
  t.equal(fingerprintOf({ a: -0 }), fingerprintOf({ a: 0 }), '-0 is written 0');
  t.equal(fingerprintOf({ a: 1e21 }), fingerprintOf(JSON.parse('{"a":1000000000000000000000}')), 'one number, two spellings');
  t.equal(fingerprintOf({ a: 2 ** 31 }), fingerprintOf(JSON.parse('{"a":2147483648}')), 'past 32 bits');
  t.not(fingerprintOf({ a: 2 ** 31 }), fingerprintOf({ a: -(2 ** 31) }), 'the sign of a large integer');
  t.not(fingerprintOf({ a: 0.1 + 0.2 }), fingerprintOf({ a: 0.3 }), '0.30000000000000004 is not 0.3');
});
