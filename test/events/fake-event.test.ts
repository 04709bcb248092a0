// Adding an event is one module, its schema and its tests: a `balance` event defined here, outside
// src/, is registered before the app is built and flows through validation, scenario rules, the
// wallet, the reply, the journal, the report, the OpenAPI document and the generated schema lists.
import t from 'tap';
import type { EventHandler } from '../../src/protocol/event.js';
import type { Rule } from '../../src/protocol/types.generated.js';
import { registerEvent } from '../../src/protocol/registry.js';

interface BalanceRequest {
  transaction_id: string;
  event_type: 'balance';
  timestamp: number;
  feedback_data: string;
  user_id: string;
  data: { currency: string };
}

const example = {
  transaction_id: 'b1',
  event_type: 'balance',
  timestamp: 1763769600,
  feedback_data: 'lobby',
  user_id: 'player-1',
  data: { currency: 'KRW' },
};

/** Its schema, as a file of schemas/ would hold it. */
const BalanceRequestSchema = {
  $id: 'BalanceRequest',
  title: 'BalanceRequest',
  description: 'The balance callback: the envelope plus the currency the provider expects.',
  examples: [example],
  type: 'object',
  required: ['transaction_id', 'event_type', 'timestamp', 'feedback_data', 'user_id', 'data'],
  properties: {
    transaction_id: { $ref: 'Envelope#/properties/transaction_id' },
    event_type: { type: 'string', const: 'balance' },
    timestamp: { $ref: 'Envelope#/properties/timestamp' },
    feedback_data: { $ref: 'Envelope#/properties/feedback_data' },
    user_id: { $ref: 'Envelope#/properties/user_id' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['currency'],
      properties: { currency: { type: 'string', minLength: 1 } },
    },
  },
};

/** Its module: no round, R3 when the currency is not the player's, else R0 with the balance. */
const balance: EventHandler<BalanceRequest> = {
  type: 'balance',
  schema: BalanceRequestSchema,
  gameNo: () => undefined,
  matchFields: (req) => ({ currency: req.data.currency }),
  decide(req, { player, findings }) {
    if (req.data.currency === player.currency) return [];
    findings.push({ code: 'CURRENCY_MISMATCH', severity: 'error', message: `not ${player.currency}`, pointer: '/data/currency' });
    return 'R3';
  },
  findings: ['CURRENCY_MISMATCH'],
  echoesCallbackUrl: false,
  grading: { startsSession: false },
};

registerEvent(balance);
// The app is imported once the event is registered: its schemas are compiled with it.
const { buildTestApp, HEADERS, now } = await import('../helpers/app.js');
const { BUILT_IN_EVENTS } = await import('../../src/protocol/seed/index.js');
const { eventListsWritten, eventsModule } = await import('../../scripts/gen-events.js');
const { SCHEMAS_DIR } = await import('../../src/kernel/paths.js');

const balanceOf = (user: string, currency: string, tx: string) =>
  JSON.stringify({ ...example, transaction_id: tx, user_id: user, timestamp: now(), data: { currency } });

t.test('a registered event is validated, decided, journalled, graded and documented', async (t) => {
  // The generated Scenario type knows the built-in events only: this one is registered at run time.
  const busy = { name: 'busy', when: { event_type: 'balance', user_id: 'busy' }, then: { code: 'R1' } } as unknown as Rule;
  const { app } = await buildTestApp({ rules: [busy] });
  t.teardown(() => app.close());
  const send = async (payload: string) => {
    const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload });
    return { body: res.json(), headers: res.headers };
  };

  const ok = await send(balanceOf('player-1', 'KRW', 'b-ok'));
  t.match(ok.body, { code: 'R0', event_type: 'balance', user_id: 'player-1', latest_balance: 1000000 }, 'decided by its module');
  t.equal(ok.headers['callback-url'], undefined, 'its reply does not echo Callback-URL (echoesCallbackUrl: false)');

  const wrong = await send(balanceOf('player-1', 'USD', 'b-usd'));
  t.equal(wrong.body.code, 'R3', 'its own check refuses');
  t.ok(wrong.headers['x-wallet-sim-reason'], 'its refusal says why');
  t.equal((await send(balanceOf('player-1', 'USD', 'b-usd'))).body.code, 'R3', 'resent');

  const invalid = await send(JSON.stringify({ ...example, timestamp: now(), data: {} }));
  t.equal(invalid.body.code, 'R3', 'its schema validates it');
  const unknown = await send(JSON.stringify({ ...example, event_type: 'refund' }));
  t.equal(unknown.body.code, 'R3', 'an event nobody registered is refused');

  t.equal((await send(balanceOf('busy', 'USD', 'b-busy'))).body.code, 'R1', 'a scenario rule matches its event_type');

  const journal = (await app.inject({ method: 'GET', url: '/admin/journal?event_type=balance' })).json();
  t.same(
    journal.entries.map((e: { transaction_id: string; code: string }) => [e.transaction_id, e.code]),
    [
      ['b-ok', 'R0'],
      ['b-usd', 'R3'],
      ['b-usd', 'R3'],
      ['b1', 'R3'],
      ['b-busy', 'R1'],
    ],
    'the journal filters by its event_type',
  );
  // The journal keeps an unknown event_type as sent, for a tester to look for: refused, with the list of events.
  const refund = (await app.inject({ method: 'GET', url: '/admin/journal?event_type=refund' })).json();
  t.match(
    refund.entries,
    [{ code: 'R3', findings: [{ code: 'SCHEMA', message: '/event_type must be one of login, bet, bet_result, balance' }] }],
    'an unregistered event is refused with the list of the registered ones',
  );

  const report = (await app.inject({ method: 'GET', url: '/admin/report' })).json();
  t.equal(report.findings.CURRENCY_MISMATCH, 2, 'the report counts its findings');
  t.equal(report.timing.max_attempts, 2, 'the report grades its transactions (b-usd was sent twice)');

  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const components = doc.components.schemas;
  t.ok(components.BalanceRequest, 'the OpenAPI document has its request schema');
  t.equal(components.CallbackRequest.discriminator.mapping.balance, '#/components/schemas/BalanceRequest', 'the discriminator maps it');
  t.ok(
    components.CallbackRequest.oneOf.some((b: { $ref?: string }) => b.$ref === '#/components/schemas/BalanceRequest'),
    'the callback request is one of its schemas too',
  );
});

t.test('gen:types would list it in schemas/ and in the event names', async (t) => {
  const files = eventListsWritten(SCHEMAS_DIR, [...BUILT_IN_EVENTS, balance]);
  t.same(
    files.map((f) => f.file.replace(/.*\//, '')),
    ['callback-request.schema.json', 'envelope.schema.json', 'journal-match.schema.json', 'ledger-row.schema.json', 'scenario.schema.json'],
  );
  for (const { file, text } of files) {
    const listed = file.endsWith('ledger-row.schema.json')
      ? !text.includes('"balance"')
      : text.includes('"balance"') || text.includes('"BalanceRequest#"');
    t.ok(listed, `${file}: ${file.endsWith('ledger-row.schema.json') ? 'not in the ledger (it has no round)' : 'listed'}`);
  }
  t.match(eventsModule([...BUILT_IN_EVENTS, balance]), "['login', 'bet', 'bet_result', 'balance']");
});
