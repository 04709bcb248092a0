// One session of callbacks and the table of what each filter of GET /admin/journal lists from it:
// shared by the in-memory journal's test (test/journal-filters.test.ts) and the Redis journal's
// (test/redis/journal-filters.test.ts), so both answer the filter language alike.
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { bet, login, send } from './app.js';

/** A rule that forces R3 on table T9: entries with a rule, a code other than R0, a table of their own. */
export const FILTER_SCENARIO: Partial<Scenario> = {
  rules: [{ name: 'table-nine', when: { table_no: 'T9' }, then: { code: 'R3' } }],
};

const LABELS = ['login-p1', 'bet-p1', 'bet-p1-again', 'bet-p2-T9', 'login-p2'] as const;
type Label = (typeof LABELS)[number];

/** Plays the session: a login, a bet and its replay (same body), a bet the rule refuses, another login. */
export async function playSession(app: FastifyInstance): Promise<{ betTx: string }> {
  const first = bet('p1', 'G1', [['1', 'P', 100]], { currency: 'USD' });
  const refused = bet('p2', 'G2', [['1', 'B', 5]], { currency: 'USD' });
  refused.data.table_no = 'T9';
  const codes: string[] = [];
  for (const body of [login('p1'), first, first, refused, login('p2')]) codes.push((await send(app, body)).body.code);
  if (codes.join() !== 'R0,R0,R0,R3,R0') throw new Error(`the filter session went otherwise than planned: ${codes.join()}`);
  return { betTx: first.transaction_id };
}

/** Each query and the entries it lists, oldest first. */
export const filterCases = (betTx: string): [string, Label[]][] => [
  ['', [...LABELS]],
  ['user_id=p2', ['bet-p2-T9', 'login-p2']],
  ['event_type=login', ['login-p1', 'login-p2']],
  ['game_no=G1', ['bet-p1', 'bet-p1-again']],
  ['table_no=T9', ['bet-p2-T9']],
  ['table_no=T1', ['bet-p1', 'bet-p1-again']],
  [`transaction_id=${betTx}`, ['bet-p1', 'bet-p1-again']],
  ['code=R3', ['bet-p2-T9']],
  ['code=R0', ['login-p1', 'bet-p1', 'bet-p1-again', 'login-p2']],
  ['replayed=true', ['bet-p1-again']],
  ['replayed=false', ['login-p1', 'bet-p1', 'bet-p2-T9', 'login-p2']],
  ['rule=table-nine', ['bet-p2-T9']],
  ['rule=nope', []],
  ['user_id=p1&event_type=bet&replayed=false', ['bet-p1']],
  ['event_type=bet&code=R0&limit=1', ['bet-p1-again']],
  ['code=R0&after=2&limit=2', ['bet-p1-again', 'login-p2']],
  ['user_id=p2&code=R0&table_no=T9', []],
  // Any event_type: the journal keeps refused callbacks' own (none in this session).
  ['event_type=refund', []],
];

/** Each bad query: the pointer at fault and what its message says. */
export const BAD_QUERIES: [string, string, RegExp][] = [
  ['replayed=yes', 'querystring:/replayed', /must be one of "true", "false"/],
  ['replayed=1', 'querystring:/replayed', /must be one of "true", "false"/],
  ['code=R9', 'querystring:/code', /must be one of "R0", "R1", "R2", "R3", "R4"/],
  ['status=R3', 'querystring:/status', /is not an allowed property/],
  ['user_id=a&user_id=b', 'querystring:/user_id', /must be string/],
  ['limit=abc', 'querystring:/limit', /must be a whole number/],
  ['after=-1', 'querystring:/after', /must be a whole number/],
];

const PARAMETERS = 'user_id, event_type, game_no, table_no, transaction_id, code, replayed, rule, after, limit';

/** Runs both tables against an app whose journal holds exactly the session (journal ids 1 to 5). */
export async function checkFilters(t: Test, app: FastifyInstance, betTx: string): Promise<void> {
  const label = (e: { id: number }) => LABELS[e.id - 1];
  for (const [query, want] of filterCases(betTx)) {
    const res = await app.inject(`/admin/journal?${query}`);
    t.equal(res.statusCode, 200, `${query}: 200`);
    const page = res.json() as { count: number; entries: { id: number }[] };
    t.same(page.entries.map(label), want, `?${query}`);
    t.equal(page.count, want.length, `?${query}: count`);
  }
  for (const [query, pointer, message] of BAD_QUERIES) {
    const res = await app.inject(`/admin/journal?${query}`);
    t.equal(res.statusCode, 400, `${query}: 400`);
    const body = res.json() as { error: string; message: string; details: { pointer: string; message: string }[] };
    t.equal(body.error, 'BAD_REQUEST', `${query}: BAD_REQUEST`);
    t.match(body.details, [{ pointer, message }], `${query}: names ${pointer}`);
    t.match(body.message, message, `${query}: the message says what is wrong`);
    t.ok(
      body.message.endsWith(`GET /admin/journal takes the query parameters ${PARAMETERS} (described at /docs)`),
      `${query}: and what to send`,
    );
  }
}
