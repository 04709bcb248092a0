import type autocannon from 'autocannon';

/** The bench's traffic, shared by the HTTP bench (bench.ts) and the in-process one (pipeline.ts). */
export const HEADERS = {
  'content-type': 'application/json',
  'api-id': 'bench',
  'api-key': 'bench-key',
  'callback-url': 'http://bench.test/callback',
};
export const BENCH_SCENARIO = {
  name: 'bench',
  description: 'Benchmark traffic: auto-created USD players with enough money for any run.',
  credentials: { api_id: 'bench', api_key: 'bench-key' },
  currencies: { USD: 2 },
  defaults: { currency: 'USD', balance: 1_000_000, auto_create_players: true, timestamp_skew_s: 3600 },
  players: [],
  rules: [],
};
export const PLAYERS = 1000;
export const player = (i: number) => `bench-p${String(i % PLAYERS).padStart(4, '0')}`;
const DETAIL = JSON.stringify({ pscore: 8, bscore: 3, pcards: ['H8', 'S13'], bcards: ['D2', 'C1'] });

type Envelope = (event_type: string, user_id: string) => object;
/** The round a bet and its settlement share: two bets, 2.50 in all. */
const round = (game: string) => ({ currency: 'USD', game_type: 'BAC', table_no: 'T1', game_no: game, total_bet_amount: 2.5 });
export const betBody = (envelope: Envelope, user: string, game: string) => ({
  ...envelope('bet', user),
  data: {
    ...round(game),
    bets: [
      { bet_index: '1', bet_type: 'P', bet_amount: 1.5 },
      { bet_index: '2', bet_type: 'T', bet_amount: 1 },
    ],
  },
});
export const betResultBody = (envelope: Envelope, user: string, game: string) => ({
  ...envelope('bet_result', user),
  data: {
    ...round(game),
    total_winloss: 0.5,
    result: 'P',
    result_detail: DETAIL,
    bet_results: [
      { bet_index: '1', bet_type: 'P', bet_amount: 1.5, winloss: 1.5 },
      { bet_index: '2', bet_type: 'T', bet_amount: 1, winloss: -1 },
    ],
  },
});

/** Envelopes with this run's unique transaction ids, and a unique round name per bet. */
function envelopes(): { envelope: Envelope; game: () => string } {
  const run = Date.now().toString(36);
  let tx = 0;
  return {
    envelope: (event_type, user_id) => ({
      transaction_id: `${run}-${++tx}`,
      event_type,
      timestamp: Math.floor(Date.now() / 1000),
      feedback_data: 'bench',
      user_id,
    }),
    // A round per bet, named after the bet's transaction (unique within and across runs).
    game: () => `${run}-g${tx}`,
  };
}

/** Bodies of login → bet → bet_result cycles over the players, one after the other (no HTTP). */
export function trafficBodies(): () => string {
  const { envelope, game: nextGame } = envelopes();
  let step = 0;
  let user = '';
  let game = '';
  return () => {
    const s = step++ % 3;
    if (s === 0) {
      user = player(step);
      return JSON.stringify(envelope('login', user));
    }
    if (s === 1) {
      game = nextGame();
      return JSON.stringify(betBody(envelope, user, game));
    }
    return JSON.stringify(betResultBody(envelope, user, game));
  };
}

/** Counts of the replies: R0 and the rest (with a few samples of the rest). */
export interface ReplyCounts {
  r0: number;
  nonR0: number;
  samples: string[];
}

/** autocannon's requests: login → bet → bet_result per connection cycle (autocannon resets the context each cycle). */
export function autocannonRequests(counts: ReplyCounts, route?: { path: string; headers: Record<string, string> }): autocannon.Request[] {
  const { envelope, game } = envelopes();
  let next = 0;
  const onResponse = (status: number, body: string) => {
    if (status === 200 && body.includes('"code":"R0"')) counts.r0++;
    else {
      counts.nonR0++;
      if (counts.samples.length < 5) counts.samples.push(`${status} ${body.slice(0, 300)}`);
    }
  };
  type Ctx = { user?: string; game?: string };
  const post = (build: (ctx: Ctx) => object): autocannon.Request => ({
    method: 'POST',
    path: route?.path ?? '/callback',
    headers: route?.headers ?? HEADERS,
    setupRequest: (req, ctx) => {
      req.body = JSON.stringify(build(ctx as Ctx));
      return req;
    },
    onResponse,
  });
  return [
    post((ctx) => {
      ctx.user = player(next++);
      return envelope('login', ctx.user);
    }),
    post((ctx) => {
      ctx.game = game();
      return betBody(envelope, ctx.user!, ctx.game);
    }),
    post((ctx) => betResultBody(envelope, ctx.user!, ctx.game!)),
  ];
}
