// The journal's one filter language (src/journal/match.ts): what an entry offers to it, what passes,
// and the language written as text (query parameters, tail's options). Pure: no HTTP, no journal.
import t from 'tap';
import { describeMatch, type JournalMatch, type MatchFields, matchFields, matches, type MatchSource } from '../src/journal/match.js';
import { MATCH_FIELDS, matchOfText } from '../src/journal/match-text.js';

const source = (over: Partial<MatchSource> = {}): MatchSource => ({
  user_id: 'p1',
  event_type: 'bet',
  transaction_id: 'tx-1',
  code: 'R0',
  replayed: false,
  rule: { index: 0, name: 'slow' },
  request: { body: { data: { game_no: 'G1', table_no: 'T1' } } },
  ...over,
});

t.test('matchFields: the fields the language reads, taken from an entry', async (t) => {
  const cases: [string, MatchSource, MatchFields][] = [
    [
      'a bet with a rule',
      source(),
      {
        user_id: 'p1',
        event_type: 'bet',
        transaction_id: 'tx-1',
        game_no: 'G1',
        table_no: 'T1',
        code: 'R0',
        replayed: false,
        rule: 'slow',
      },
    ],
    ['a replay without a rule', source({ replayed: true, rule: undefined }), { replayed: true, rule: undefined }],
    ['a login: no data', source({ request: { body: { user_id: 'p1' } } }), { game_no: undefined, table_no: undefined }],
    ['a body that is not JSON', source({ request: { body: '{"data":' } }), { game_no: undefined, table_no: undefined }],
    ['a null body', source({ request: { body: null } }), { game_no: undefined, table_no: undefined }],
    ['data that is not an object', source({ request: { body: { data: 'G1' } } }), { game_no: undefined, table_no: undefined }],
    ['data: null', source({ request: { body: { data: null } } }), { game_no: undefined, table_no: undefined }],
    ['numbers where strings belong', source({ request: { body: { data: { game_no: 7, table_no: false } } } }), { game_no: undefined }],
  ];
  for (const [name, entry, want] of cases) {
    const got = matchFields(entry) as Record<string, unknown>;
    t.same(Object.fromEntries(Object.keys(want).map((k) => [k, got[k]])), want, name);
  }
  const unreadable = matchFields(source({ user_id: undefined, event_type: undefined, transaction_id: undefined, code: undefined }));
  const { user_id, event_type, transaction_id, code } = unreadable;
  t.same([user_id, event_type, transaction_id, code], [undefined, undefined, undefined, undefined], 'an unreadable callback: none of them');
});

t.test('matches: every given field must equal; absent or empty takes all', async (t) => {
  const e = matchFields(source());
  const cases: [JournalMatch | undefined, boolean][] = [
    [undefined, true],
    [{}, true],
    [{ user_id: 'p1' }, true],
    [{ user_id: 'p2' }, false],
    [{ event_type: 'bet' }, true],
    [{ event_type: 'login' }, false],
    [{ transaction_id: 'tx-1' }, true],
    [{ transaction_id: 'tx-2' }, false],
    [{ game_no: 'G1' }, true],
    [{ game_no: 'G2' }, false],
    [{ table_no: 'T1' }, true],
    [{ table_no: 'T9' }, false],
    [{ code: 'R0' }, true],
    [{ code: 'R3' }, false],
    [{ replayed: false }, true],
    [{ replayed: true }, false],
    [{ rule: 'slow' }, true],
    [{ rule: 'broke' }, false],
    [{ user_id: 'p1', event_type: 'bet', game_no: 'G1', code: 'R0', replayed: false, rule: 'slow', table_no: 'T1' }, true],
    [{ user_id: 'p1', event_type: 'bet', game_no: 'G1', code: 'R4' }, false],
  ];
  for (const [m, want] of cases) t.equal(matches(e, m), want, JSON.stringify(m));
});

t.test('matches: an entry without a field never matches a filter on it', async (t) => {
  const bare = matchFields(source({ code: undefined, rule: undefined, request: { body: null } }));
  for (const m of [{ code: 'R0' }, { rule: 'slow' }, { game_no: 'G1' }, { table_no: 'T1' }] as JournalMatch[])
    t.equal(matches(bare, m), false, JSON.stringify(m));
  t.equal(matches(bare, { user_id: 'p1' }), true, 'the fields it has still match');
  const numbered = matchFields(source({ request: { body: { data: { game_no: 7 } } } }));
  t.equal(matches(numbered, { game_no: '7' }), false, 'a game_no sent as a number is not the string "7"');
});

t.test('matches reads only the language: paging and other keys are ignored', async (t) => {
  const e = matchFields(source());
  t.equal(matches(e, { user_id: 'p1', after: 5, limit: 1 } as JournalMatch), true);
});

t.test('describeMatch: the fields as given, or "all callbacks"', async (t) => {
  t.equal(describeMatch(undefined), 'all callbacks');
  t.equal(describeMatch({}), 'all callbacks');
  t.equal(describeMatch({ user_id: 'player-1', event_type: 'bet' }), 'user_id=player-1 event_type=bet');
  t.equal(describeMatch({ replayed: false, code: 'R3' }), 'replayed=false code=R3');
});

t.test('the language as text: the fields of the schema; "true"/"false" read as booleans, other names left out', async (t) => {
  t.same(Object.keys(MATCH_FIELDS), ['user_id', 'event_type', 'game_no', 'table_no', 'transaction_id', 'code', 'replayed', 'rule']);
  t.same(MATCH_FIELDS.replayed?.type, 'boolean');
  const cases: [Record<string, unknown>, JournalMatch][] = [
    [{}, {}],
    [
      { user_id: 'p1', code: 'R3' },
      { user_id: 'p1', code: 'R3' },
    ],
    [{ replayed: 'true' }, { replayed: true }],
    [{ replayed: 'false' }, { replayed: false }],
    [
      { game_no: 'G1', table_no: 'T1', rule: 'slow', transaction_id: 'tx' },
      { game_no: 'G1', table_no: 'T1', rule: 'slow', transaction_id: 'tx' },
    ],
    [{ after: '3', limit: '2', user_id: undefined }, {}],
  ];
  for (const [text, want] of cases) t.same(matchOfText(text), want, JSON.stringify(text));
});
