import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app/app.js';
import type { Journal, JournalStore } from '../../src/journal/journal.js';
import { money, sum } from '../../src/kernel/money.js';
import { ROOT } from '../../src/kernel/paths.js';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { compileScenario } from '../../src/core/scenario/scenario.js';
import { Simulator, type SimulatorOptions } from '../../src/core/simulator.js';
import { MemoryBackend } from '../../src/backends/memory/memory.js';
import type { Backend, BackendKind, BackendOptions } from '../../src/backends/backend.js';
import { LocalBackend } from '../../src/backends/local/local-backend.js';
import type { Persistence } from '../../src/ledger/store.js';
import { openSimulator } from '../../src/app/compose.js';

export const CREDENTIALS = { 'api-id': 'sandbox', 'api-key': 'sandbox-key' };
export const HEADERS = { 'content-type': 'application/json', ...CREDENTIALS, 'callback-url': 'http://provider.test/callback' };

/** A small scenario for tests: USD and KRW players, auto-create on. */
export const TEST_SCENARIO: Scenario = {
  name: 'test',
  credentials: { api_id: 'sandbox', api_key: 'sandbox-key' },
  currencies: { USD: 2, KRW: 0 },
  defaults: { currency: 'USD', balance: 1000, auto_create_players: true },
  players: [
    { user_id: 'player-1', balance: 1000000, currency: 'KRW' },
    { user_id: 'usd', balance: 100, currency: 'USD' },
  ],
  rules: [],
};

/** A built app; with a memory or file store (the default) the journal is the in-memory one, read at once. */
export interface TestApp<J extends JournalStore = Journal> {
  app: FastifyInstance;
  sim: Simulator<J>;
}

/** `store`: the backend (a memory one made with the backend options when none is given). */
type TestOptions<B> = Partial<AppOptions> & SimulatorOptions & BackendOptions & { store?: B | Persistence };

export async function buildTestApp(scenario?: Partial<Scenario>, options?: TestOptions<LocalBackend>): Promise<TestApp>;
export async function buildTestApp(scenario: Partial<Scenario>, options: TestOptions<Backend>): Promise<TestApp<JournalStore>>;
export async function buildTestApp(scenario: Partial<Scenario> = {}, options: TestOptions<Backend> = {}): Promise<TestApp<JournalStore>> {
  const { store } = options;
  // A persistence alone (a file, a failing disk) is wrapped as the file backend wraps its files.
  const backend = !store
    ? new MemoryBackend(options)
    : 'load' in store
      ? new LocalBackend(store.kind as BackendKind, store, options)
      : store;
  const sim = await openSimulator(compileScenario({ ...TEST_SCENARIO, ...scenario }), backend, options);
  const app = await buildApp({ ...options, sim });
  return { app, sim };
}

/** The spec's worked examples, kept in test/fixtures. */
export function example(name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(ROOT, 'test/fixtures', name), 'utf8'));
}

/** An exact sum of JSON amounts (0.1 + 0.2 is 0.3 here), as the number a client would send. */
export const exactSum = (amounts: number[]): number => Number(sum(amounts.map((a) => money(a))).toFixed());

let seq = 0;
export const txid = (prefix = 'tx') => `${prefix}-${process.pid}-${++seq}`;
export const now = () => Math.floor(Date.now() / 1000);

export const login = (user_id: string, extra: object = {}) => ({
  transaction_id: txid('login'),
  event_type: 'login',
  timestamp: now(),
  feedback_data: 'fb',
  user_id,
  ...extra,
});

export function bet(user_id: string, game_no: string, bets: [string, string, number][], extra: { currency?: string; total?: number } = {}) {
  return {
    transaction_id: txid('bet'),
    event_type: 'bet',
    timestamp: now(),
    feedback_data: 'fb',
    user_id,
    data: {
      currency: extra.currency ?? 'KRW',
      game_type: 'BAC',
      table_no: 'T1',
      game_no,
      total_bet_amount: extra.total ?? exactSum(bets.map(([, , a]) => a)),
      bets: bets.map(([bet_index, bet_type, bet_amount]) => ({ bet_index, bet_type, bet_amount })),
    },
  };
}

export const DETAIL = JSON.stringify({ pscore: 8, bscore: 3, pcards: ['H8', 'S13'], bcards: ['D2', 'C1'] });

export function result(
  user_id: string,
  game_no: string,
  results: [string, string, number, number][],
  extra: { currency?: string; total?: number; winloss?: number; detail?: string } = {},
) {
  return {
    transaction_id: txid('res'),
    event_type: 'bet_result',
    timestamp: now(),
    feedback_data: 'fb',
    user_id,
    data: {
      currency: extra.currency ?? 'KRW',
      game_type: 'BAC',
      table_no: 'T1',
      game_no,
      total_bet_amount: extra.total ?? exactSum(results.map(([, , a]) => a)),
      total_winloss: extra.winloss ?? exactSum(results.map(([, , , w]) => w)),
      result: 'P',
      result_detail: extra.detail ?? DETAIL,
      bet_results: results.map(([bet_index, bet_type, bet_amount, winloss]) => ({ bet_index, bet_type, bet_amount, winloss })),
    },
  };
}

export interface Sent {
  status: number;
  body: any;
  headers: LightMyRequestResponse['headers'];
  raw: string;
}

/** POSTs a callback (an object is sent as JSON, a string as is). */
export async function send(
  app: FastifyInstance,
  payload: object | string,
  headers: Record<string, string> = HEADERS,
  path = '/callback',
): Promise<Sent> {
  const res = await app.inject({
    method: 'POST',
    url: path,
    headers,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  } as InjectOptions);
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, body, headers: res.headers, raw: res.body };
}

export const balanceOf = (sim: Simulator<Journal>, user: string) => sim.player(user)?.balance.toFixed();

/** The whole wallet state (players, rounds, transactions) as comparable JSON: "nothing changed" checks. */
export const snapshot = (sim: Simulator): string => JSON.stringify([...sim.state.changes()]);

/** Journal entries through the admin API, oldest first. */
export async function journal(app: FastifyInstance, query: Record<string, string> = {}): Promise<any[]> {
  const res = await app.inject({ method: 'GET', url: '/admin/journal', query });
  if (res.statusCode !== 200) throw new Error(`GET /admin/journal: HTTP ${res.statusCode} ${res.body}`);
  return res.json().entries;
}

/** Listens on a free loopback port; returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address !== 'object') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

/** POSTs a callback over a real socket. */
export async function post(url: string, payload: object | string, headers: Record<string, string> = HEADERS): Promise<Sent> {
  const res = await fetch(url, { method: 'POST', headers, body: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  const raw = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = raw;
  }
  return { status: res.status, body, headers: Object.fromEntries(res.headers), raw };
}
