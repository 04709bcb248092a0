import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { StoreUnavailable } from '../ledger/store-error.js';
import { apiError, sendApiError } from '../http/errors.js';
import { amountProblem, money } from '../kernel/money.js';
import type { PlayerUpdate, Scenario } from '../protocol/types.generated.js';
import { compileScenario } from '../core/scenario/scenario.js';
import { deadRules } from '../core/scenario/dead-rules.js';
import { checkHostable, checkProxyable } from '../core/scenario/proxy-check.js';
import { reportRoutes } from './report.js';
import type { Simulator } from '../core/simulator.js';
import { PlayerLimit } from '../core/player-limit.js';
import type { EndOf, SignedFor, SimOf } from './sim-of.js';
import type { Signer } from '../evidence/signing-key.js';
import { uiAdminRoutes } from './ui.js';
import { journalRoutes } from './journal.js';
import { ledgerRoutes } from './ledger.js';
import type { Player } from '../ledger/state.js';
import { addAdminGuard, type AdminGuardOptions } from './admin-guard.js';
import { parseAdminJson } from './scenario-body.js';
import { adminSchema, adminSecurity, SCENARIO_WARNINGS, TOO_DEEP, UNREADABLE_400 } from './admin-docs.js';
import { errorBody, errorResponse, invalid, namedExamples, sentAsReturned, UNREADABLE } from './docs.js';
import type { ListenerSlots } from './listener-slots.js';

const view = (p: Player) => ({ user_id: p.user_id, balance: p.balance.toNumber(), currency: p.currency });

const playerParams = { type: 'object', required: ['user_id'], properties: { user_id: { type: 'string', minLength: 1 } } } as const;
const ok = (extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['ok'],
  properties: { ok: { type: 'boolean', const: true }, ...extra },
});

const SET_PLAYER =
  'Sets the balance (and optionally the currency) of a player, creating it when unknown. ' + "The balance must fit the currency's scale.";
const SET_SCENARIO =
  'Replaces rules, credentials, currencies and defaults, resets the rule counters and sets the listed players to ' +
  'their balances; other players and history stay. `?reset=true` starts over from the new scenario. An invalid scenario is refused ' +
  'with 400 naming each bad field by JSON pointer, and the old one stays active. While proxying (start --upstream), a rule with ' +
  '`set_balance` is refused the same way (the balances live in the upstream wallet).';
const CREDENTIALS_FIXED =
  "the scenario's credentials were ignored: a tenant's Api-Id and Api-Key are fixed when it is created (the host's POST /tenants showed them)";
const RULE_HITS = 'For each rule of the active scenario: how often it matched and fired, and whether `times` is used up.';

interface AdminRouteOptions {
  simOf: SimOf;
  token?: string;
  guard?: Omit<AdminGuardOptions, 'token'>;
  /** Event stream listeners served at once (GET /admin/events); hosted mode: and per tenant. */
  maxListeners?: number;
  maxListenersEach?: number;
  /** Hosted mode: the listener budget the admin streams share with the probe run streams. */
  listenerSlots?: ListenerSlots;
  /** --signing-key: signs GET /admin/report?signed=true. */
  signer?: Signer;
  /** Hosted mode: who may call (the tenant's token or the host's), in place of `token`. */
  authorize?: AdminGuardOptions['authorize'];
  /** Hosted mode: the credentials are the tenant's, fixed; a scenario's own are ignored (and the answer says so); a delay_ms is capped. */
  credentialsFixed?: boolean;
  /** Hosted mode: ends a request's event stream when its token is rotated. */
  streamsEnd?: EndOf;
  /** Hosted mode: the tenant a signed report names. */
  signedFor?: SignedFor;
}

const playerUpdateSummary = (v: Record<string, unknown>) =>
  v.currency ? `balance ${String(v.balance)} ${String(v.currency)}` : `balance ${String(v.balance)}, currency unchanged`;

/**
 * The admin API (WireMock's vocabulary): players, reset, journal (journal.ts), scenario. Each route documents
 * itself; adminSchema adds what the guard in front of every admin route can answer. Replies are
 * what the handlers return (sentAsReturned): the response schemas are for the document.
 */
export const adminRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, o) => {
  const { simOf, token, guard, maxListeners, maxListenersEach, listenerSlots, signer } = o;
  const { authorize, credentialsFixed, streamsEnd, signedFor } = o;
  addAdminGuard(app, { ...guard, token, authorize });
  parseAdminJson(app);
  // A read of the store that failed because it cannot serve now (Redis away, frozen, a cluster down), in any
  // admin route (the journal's, the ledger's, the report's): the app's handler answers 503 with the reason.
  app.setErrorHandler((error, request) => {
    throw storeUnavailable(error, request) ?? error;
  });
  const storeUnavailable = (error: unknown, request: FastifyRequest): StoreUnavailable | undefined => {
    if (error instanceof StoreUnavailable) return undefined; // (already one)
    let why: string | undefined;
    try {
      why = simOf(request).backend.unavailable?.(error);
    } catch {
      return undefined; // (no simulator for this request: hosted mode's unknown tenant)
    }
    return why === undefined ? undefined : new StoreUnavailable(why, { cause: error });
  };
  const docs = { locked: token !== undefined || authorize !== undefined, bodyLimit: app.initialConfig.bodyLimit ?? 1024 * 1024 };

  app.get(
    '/players',
    {
      ...sentAsReturned,
      schema: adminSchema('GET', docs, {
        operationId: 'listPlayers',
        summary: 'Every player and balance',
        response: { 200: { description: 'Every player with its balance and currency.', type: 'array', items: { $ref: 'Player#' } } },
      }),
    },
    async (request, reply) => {
      const sim = simOf(request);
      if (sim.storeFailure) return sendApiError(reply, storeDown(sim));
      return (await sim.store.players()).map(view);
    },
  );

  app.get<{ Params: { user_id: string } }>(
    '/players/:user_id',
    {
      ...sentAsReturned,
      schema: adminSchema('GET', docs, {
        operationId: 'getPlayer',
        summary: 'One player',
        params: playerParams,
        response: {
          200: { description: 'The player.', $ref: 'Player#' },
          404: errorResponse('No player with that user_id (PLAYER_UNKNOWN).', [errorBody('PLAYER_UNKNOWN', 'nobody')]),
        },
      }),
    },
    async (request, reply) => {
      const sim = simOf(request);
      if (sim.storeFailure) return sendApiError(reply, storeDown(sim));
      const p = await sim.store.player(request.params.user_id);
      return p ? view(p) : sendApiError(reply, apiError('PLAYER_UNKNOWN', request.params.user_id, simOf(request).adminPath));
    },
  );

  app.put<{ Params: { user_id: string }; Body: PlayerUpdate }>(
    '/players/:user_id',
    {
      ...sentAsReturned,
      schema: adminSchema('PUT', docs, {
        operationId: 'setPlayer',
        summary: 'Set a balance (creates the player when unknown)',
        description: SET_PLAYER,
        params: playerParams,
        body: { $ref: 'PlayerUpdate#' },
        bodyExamples: namedExamples('PlayerUpdate', playerUpdateSummary),
        response: {
          200: { description: 'The player after the change.', $ref: 'Player#' },
          400: errorResponse(
            'The body is invalid (BAD_REQUEST: details name each field by JSON pointer), or the balance has more fraction digits than the ' +
              `currency's scale. ${UNREADABLE_400} Nothing changed.`,
            [invalid('/balance', 'must be >= 0'), invalid('/balance', '10.5 has 1 fraction digit; KRW allows 0'), ...UNREADABLE, TOO_DEEP],
          ),
          409: errorResponse(
            'Proxy mode (start --upstream): balances live in the upstream wallet (BALANCES_UPSTREAM). Hosted mode: a new player past ' +
              "the host's --tenant-players (PLAYER_LIMIT). Nothing changed.",
            [errorBody('BALANCES_UPSTREAM', 'http://wallet.staging:8080/callback'), errorBody('PLAYER_LIMIT', 1000)],
          ),
        },
      }),
    },
    async (request, reply) => {
      const sim = simOf(request);
      if (sim.upstream) return sendApiError(reply, apiError('BALANCES_UPSTREAM', sim.upstream));
      const { balance, currency } = request.body;
      const cur = currency ?? (await sim.store.player(request.params.user_id))?.currency ?? sim.scenario.defaultCurrency;
      const amount = money(balance);
      const problem = amountProblem(amount, cur, sim.scenario.scaleOf(cur));
      const details = problem && [{ pointer: '/balance', message: problem.message }];
      if (problem) return sendApiError(reply, apiError('BAD_REQUEST', `/balance ${problem.message}`), details);
      try {
        return view(await sim.setPlayer(request.params.user_id, amount, cur));
      } catch (e) {
        if (e instanceof PlayerLimit) return sendApiError(reply, apiError('PLAYER_LIMIT', e.max, simOf(request).adminPath));
        throw e;
      }
    },
  );

  app.post(
    '/reset',
    {
      ...sentAsReturned,
      schema: adminSchema('POST', docs, {
        operationId: 'reset',
        summary: "Back to the scenario's initial state; journal and rule counters cleared",
        response: {
          200: { description: 'Players back to the scenario, rounds, transactions, rule counters and journal cleared.', ...ok() },
        },
      }),
    },
    async (request) => {
      await simOf(request).reset();
      return { ok: true };
    },
  );

  await app.register(journalRoutes, { simOf, docs }); // GET and DELETE /admin/journal
  await app.register(ledgerRoutes, { simOf, docs }); // GET /admin/ledger

  app.get(
    '/scenario',
    {
      ...sentAsReturned,
      schema: adminSchema('GET', docs, {
        operationId: 'getScenario',
        summary: 'The active scenario document',
        response: {
          200: {
            description:
              "The active scenario document, as loaded, with the credentials in effect (a hosted tenant's generated ones, or --api-id / --api-key).",
            $ref: 'Scenario#',
          },
        },
      }),
    },
    async (request) => {
      // The credentials a caller must send, not ones the document named that do not apply (a tenant's are fixed).
      const sim = simOf(request);
      const { source } = sim.scenario;
      const { api_id, api_key } = sim.credentials;
      if (source.credentials.api_id === api_id && source.credentials.api_key === api_key) return source;
      return { ...source, credentials: { ...source.credentials, api_id, api_key } };
    },
  );

  app.get(
    '/scenario/rules',
    {
      ...sentAsReturned,
      schema: adminSchema('GET', docs, {
        operationId: 'ruleHits',
        summary: 'Hit counters of the active rules',
        response: { 200: { description: RULE_HITS, $ref: 'RuleHits#' } },
      }),
    },
    async (request) => simOf(request).ruleHits(),
  );

  app.put<{ Body: Scenario; Querystring: { reset?: string } }>(
    '/scenario',
    {
      ...sentAsReturned,
      schema: adminSchema('PUT', docs, {
        operationId: 'setScenario',
        summary: 'Replace the scenario (invalid: 400 naming each field; the old one stays)',
        description: SET_SCENARIO,
        // A misspelt ?rest=true would otherwise keep the session silently: refused, naming reset.
        querystring: { type: 'object', additionalProperties: false, properties: { reset: { type: 'string', enum: ['true', 'false'] } } },
        body: { $ref: 'Scenario#' },
        bodyExamples: namedExamples('Scenario', (v) => `${String(v.name)}: ${String(v.description ?? '')}`),
        response: {
          200: {
            description: 'The scenario is active.',
            ...ok({
              name: { type: 'string' },
              reset: { type: 'boolean' },
              note: { type: 'string', description: "Hosted mode: the scenario's `credentials` were ignored (a tenant's are fixed)." },
              warnings: SCENARIO_WARNINGS,
            }),
          },
          400: errorResponse(
            `The scenario is invalid: SCENARIO_INVALID or BAD_REQUEST, details name each field by JSON pointer; or a query parameter is not reset=true|false (BAD_REQUEST, naming reset). ${UNREADABLE_400} ` +
              'Nothing changed, the old scenario stays active.',
            [
              invalid('/players/0/balance', 'has 1 fraction digit; KRW allows 0', 'SCENARIO_INVALID'),
              invalid('/rules/0/then/delay_ms', 'must be >= 0'),
              ...UNREADABLE,
              TOO_DEEP,
            ],
          ),
        },
      }),
    },
    async (request) => {
      const sim = simOf(request);
      const next = compileScenario(request.body, 'scenario'); // a ScenarioError becomes a 400 naming each field
      if (sim.upstream) checkProxyable(next, 'scenario'); // no set_balance while proxying: also a 400
      if (credentialsFixed) checkHostable(next, 'scenario', sim.backend.maxPlayers); // hosted: no delay_ms past the cap, nor too many players
      await sim.setScenario(next, request.query.reset === 'true');
      const ignored = credentialsFixed && request.body.credentials !== undefined;
      // What validate and start print for a file, said to the API client too (the scenario loads all the same).
      const warnings = deadRules(next.source);
      return {
        ok: true,
        name: next.source.name,
        reset: request.query.reset === 'true',
        ...(ignored && { note: CREDENTIALS_FIXED }),
        ...(warnings.length && { warnings }),
      };
    },
  );

  // GET /admin/events, /admin/scenarios
  await app.register(uiAdminRoutes, { simOf, security: adminSecurity(docs), maxListeners, maxListenersEach, listenerSlots, streamsEnd });
  await app.register(reportRoutes, { simOf, locked: token !== undefined || authorize !== undefined, signer, signedFor });
};

/** A local store's failure is latched until a restart; a shared store (Redis) is only unreachable for now. */
const storeDown = (sim: Simulator) => apiError(sim.backend.failureCode, sim.storeFailure!);
