import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { StoredEntry } from '../journal/journal.js';
import { amountProblem, money } from '../money.js';
import type { PlayerUpdate, Scenario } from '../protocol/types.generated.js';
import { compileScenario } from '../scenario/scenario.js';
import { reportRoutes } from './report.js';
import type { Simulator } from '../simulator.js';
import { uiAdminRoutes } from './ui.js';
import type { Player } from '../wallet/state.js';
import { addAdminGuard, type AdminGuardOptions } from './admin-guard.js';

const view = (p: Player) => ({ user_id: p.user_id, balance: p.balance.toNumber(), currency: p.currency });

const errorReply = { $ref: 'ApiError#' } as const;
const playerParams = { type: 'object', required: ['user_id'], properties: { user_id: { type: 'string', minLength: 1 } } } as const;

/** The admin API (WireMock's vocabulary): players, reset, journal, scenario. */
export const adminRoutes: FastifyPluginAsync<{ sim: Simulator; token?: string; guard?: Omit<AdminGuardOptions, 'token'> }> = async (app, { sim, token, guard }) => {
  addAdminGuard(app, { ...guard, token });
  const tags = ['admin'];
  const security = token === undefined ? undefined : [{ bearer: [] }];

  app.get('/players', { schema: { tags, security, summary: 'Every player and balance', response: { 200: { type: 'array', items: { $ref: 'Player#' } } } } },
    async () => sim.players().map(view));

  app.get<{ Params: { user_id: string } }>('/players/:user_id', {
    schema: { tags, security, summary: 'One player', params: playerParams, response: { 200: { $ref: 'Player#' }, 404: errorReply } },
  }, async (request, reply) => {
    const p = sim.player(request.params.user_id);
    return p ? view(p) : reply.code(404).send({ error: 'PLAYER_UNKNOWN', message: `no player ${request.params.user_id}` });
  });

  app.put<{ Params: { user_id: string }; Body: PlayerUpdate }>('/players/:user_id', {
    schema: { tags, security, summary: 'Set a balance (creates the player when unknown)', params: playerParams, body: { $ref: 'PlayerUpdate#' }, response: { 200: { $ref: 'Player#' }, 400: errorReply } },
  }, async (request, reply) => {
    const { balance, currency } = request.body;
    const cur = currency ?? sim.player(request.params.user_id)?.currency ?? sim.scenario.defaultCurrency;
    const amount = money(balance);
    const problem = amountProblem(amount, cur, sim.scenario.scaleOf(cur));
    if (problem) return reply.code(400).send({ error: 'BAD_REQUEST', message: `/balance ${problem.message}`, details: [{ pointer: '/balance', message: problem.message }] });
    return view(await sim.setPlayer(request.params.user_id, amount, cur));
  });

  app.post('/reset', { schema: { tags, security, summary: "Back to the scenario's initial state; journal and rule counters cleared" } },
    async () => { await sim.reset(); return { ok: true }; });

  app.get<{ Querystring: { user_id?: string; event_type?: string; transaction_id?: string; after?: string; limit?: string } }>('/journal', {
    schema: {
      tags, security, summary: 'Callbacks received, oldest first, with findings (streamed; page with after + limit)',
      querystring: {
        type: 'object',
        properties: {
          user_id: { type: 'string' },
          event_type: { type: 'string' },
          transaction_id: { type: 'string' },
          after: { type: 'string', pattern: '^[0-9]+$', description: 'Only entries with an id greater than this; with `limit`, pages forward.' },
          limit: { type: 'string', pattern: '^[0-9]+$', description: 'Without `after`: keep only the newest n entries. With `after`: the first n after it.' },
        },
      },
    },
  }, async (request, reply) => {
    const { limit, after, ...filter } = request.query;
    const entries = sim.journal.select({ ...filter, after: after === undefined ? undefined : Number(after), limit: limit === undefined ? undefined : Number(limit) });
    // Streamed from the entries' own text: never one string the size of the whole journal.
    return reply.type('application/json').send(Readable.from(journalDocument(entries)));
  });

  app.delete('/journal', { schema: { tags, security, summary: 'Clear the journal' } }, async (_request, reply) => {
    sim.journal.reset();
    return reply.code(204).send();
  });

  app.get('/scenario', { schema: { tags, security, summary: 'The active scenario document' } }, async () => sim.scenario.source);

  app.get('/scenario/rules', { schema: { tags, security, summary: 'Hit counters of the active rules' } }, async () => sim.rules.hits());

  app.put<{ Body: Scenario; Querystring: { reset?: string } }>('/scenario', {
    schema: {
      tags, security,
      summary: 'Replace the scenario (invalid: 400 naming each field; the old one stays)',
      querystring: { type: 'object', properties: { reset: { type: 'string', enum: ['true', 'false'] } } },
      body: { $ref: 'Scenario#' },
      response: { 400: errorReply },
    },
  }, async (request) => {
    const next = compileScenario(request.body, 'scenario'); // a ScenarioError becomes a 400 naming each field
    await sim.setScenario(next, request.query.reset === 'true');
    return { ok: true, name: next.source.name, reset: request.query.reset === 'true' };
  });

  await app.register(uiAdminRoutes, { sim, security }); // GET /admin/events, GET /admin/scenarios
  await app.register(reportRoutes, { sim, locked: token !== undefined });
};

/** `{"count":n,"entries":[…]}` in pieces of about 64 KiB. */
function* journalDocument(entries: StoredEntry[]): Generator<string> {
  let chunk = `{"count":${entries.length},"entries":[`;
  for (const [i, e] of entries.entries()) {
    chunk += i ? `,${e.text}` : e.text;
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]}`;
}
