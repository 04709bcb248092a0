import t from 'tap';
import { DEFECTS } from './zoo-defects.js';
import { spawnZoo } from './spawn-zoo.js';
import { startZooWallet, type ZooOptions } from './zoo-wallet.js';

/**
 * The zoo itself: the correct wallet answers a fixed script of callbacks as the wallet rules say,
 * and every defect changes that transcript (so each defect is real and observable from outside).
 */

const GOOD = { 'api-id': 'zoo', 'api-key': 'zoo-key' };
const LATE_MS = 1000;
let seq = 0;
const tx = () => `zoo-test-${process.pid}-${++seq}`;

type Body = Record<string, unknown>;

async function call(url: string, body: Body | string, headers: Record<string, string> = GOOD): Promise<string> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'callback-url': url, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    const late = performance.now() - started > LATE_MS ? ' late' : '';
    const h = ['content-type', 'api-id', 'api-key', 'callback-url']
      .map((n) => `${n}=${n === 'callback-url' && res.headers.get(n) === url ? 'echoed' : (res.headers.get(n) ?? '-')}`)
      .join(',');
    let json: Body = {};
    try {
      json = JSON.parse(text) as Body;
    } catch {
      return `HTTP ${res.status} not json${late}`;
    }
    const balance = json.latest_balance === undefined ? '' : ` ${String(json.latest_balance)}`;
    return `HTTP ${res.status} ${String(json.code)}${balance} echo=${String(json.event_type)}/${String(json.user_id)} ${h}${late}`;
  } catch (e) {
    return `no reply (${(e as Error).name})`;
  }
}

const env = (event_type: string, user = 'player-1', extra: Body = {}): Body => ({
  transaction_id: tx(),
  event_type,
  timestamp: Math.floor(Date.now() / 1000),
  feedback_data: 'zoo-test',
  user_id: user,
  ...extra,
});
const round = (game_no: string, currency = 'USD') => ({ currency, game_type: 'BAC', table_no: 'T1', game_no });
const bet = (game_no: string, amount: unknown, o: { currency?: string; total?: unknown; index?: string } = {}): Body =>
  env('bet', 'player-1', {
    data: {
      ...round(game_no, o.currency),
      total_bet_amount: o.total ?? amount,
      bets: [{ bet_index: o.index ?? '1', bet_type: 'P', bet_amount: amount }],
    },
  });
const settle = (game_no: string, stake: number, winloss: number, o: { index?: string; total?: number; detail?: string } = {}): Body =>
  env('bet_result', 'player-1', {
    data: {
      ...round(game_no),
      total_bet_amount: o.total ?? stake,
      total_winloss: winloss,
      result: 'P',
      result_detail: o.detail ?? '{"pscore":8,"bscore":3,"pcards":["H8","S13"],"bcards":["D2","C1"]}',
      bet_results: [{ bet_index: o.index ?? '1', bet_type: 'P', bet_amount: stake, winloss }],
    },
  });

/** The script: one line per step, what the wallet answered. */
async function transcript(url: string): Promise<string[]> {
  const out: string[] = [];
  const step = async (name: string, body: Body | string, headers?: Record<string, string>) =>
    out.push(`${name}: ${await call(url, body, headers)}`);
  const g = (n: string) => `${n}-${process.pid}-${++seq}`;
  await step('login', env('login'));
  await step('login, wrong key', env('login'), { ...GOOD, 'api-key': 'nope' });
  await step('login, wrong id', env('login'), { ...GOOD, 'api-id': 'nope' });
  const g1 = g('G1');
  const first = bet(g1, 10);
  await step('bet 10', first);
  await step('resend', first);
  await step('same id, other body', { ...bet(g1, 20), transaction_id: first.transaction_id });
  await step('bet over balance', bet(g('G2'), 5000));
  await step('bet in EUR', bet(g('G3'), 1, { currency: 'EUR' }));
  await step('amount as string', bet(g('G4'), '1.5'));
  const noTs = bet(g('G4'), 1);
  delete noTs.timestamp;
  await step('no timestamp', noTs);
  await step('amount 0', bet(g('G4'), 0));
  await step('amount -1', bet(g('G4'), -1));
  await step('amount 1.001', bet(g('G4'), 1.001));
  await step('bad total', bet(g('G4'), 1, { total: 2 }));
  await step('settle win', settle(g1, 10, 5));
  await step('settle again, new id', settle(g1, 10, 5));
  await step('bet on settled round', bet(g1, 1));
  await step('settle never bet', settle(g('G9'), 10, 5));
  const g5 = g('G5');
  await step('bet 10', bet(g5, 10));
  await step('winloss below -stake', settle(g5, 10, -11));
  await step('unknown bet_index', settle(g5, 10, 0, { index: '9' }));
  await step('stake differs', settle(g5, 20, 0, { total: 20 }));
  await step('bad result_detail', settle(g5, 10, 0, { detail: 'not json' }));
  await step('settle, wrong key', settle(g5, 10, -10), { ...GOOD, 'api-key': 'nope' });
  await step('settle loss', settle(g5, 10, -10));
  await step('bet 0.1', bet(g('G6'), 0.1));
  await step('bet 0.2', bet(g('G7'), 0.2));
  await step('unknown player', env('login', 'nobody-here'));
  await step('not json', '{"event_type":"bet",');
  // 995 left: four simultaneous bets of 300 can be three R0 and one R4, never four R0.
  const codes = await Promise.all([1, 2, 3, 4].map(() => call(url, bet(g('GC'), 300))));
  out.push(
    `concurrent: ${codes
      .map((c) => c.split(' ')[2])
      .sort()
      .join(' ')}`,
  );
  await step('final login', env('login'));
  return out;
}

t.test('the correct wallet, as a real child process, answers the script as the wallet rules say', async (t) => {
  const zoo = await spawnZoo([]);
  t.teardown(() => zoo.stop());
  t.match(zoo.url, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const lines = await transcript(zoo.url);
  const code = (prefix: string) => /HTTP \d+ (\S+)/.exec(lines.find((l) => l.startsWith(`${prefix}:`)) ?? '')?.[1];
  t.equal(code('login'), 'R0');
  t.match(lines[0], /R0 1000 echo=login\/player-1 content-type=application\/json,api-id=zoo,api-key=zoo-key,callback-url=echoed/);
  t.match(lines[1], /R2 echo=login\/player-1 content-type=application\/json,api-id=zoo,api-key=nope,/, 'R2 echoes the caller key');
  t.equal(code('login, wrong id'), 'R2');
  t.match(lines[3], /R0 990 /);
  t.match(lines[4], /R0 990 /, 'a resend changes nothing');
  for (const refused of [
    'same id, other body',
    'bet in EUR',
    'amount as string',
    'no timestamp',
    'amount 0',
    'amount -1',
    'amount 1.001',
    'bad total',
    'settle again, new id',
    'bet on settled round',
    'settle never bet',
    'winloss below -stake',
    'unknown bet_index',
    'stake differs',
    'bad result_detail',
    'unknown player',
    'not json',
  ])
    t.equal(code(refused), 'R3', refused);
  t.match(
    lines.find((l) => l.startsWith('bet over balance')),
    /R4 990 /,
  );
  t.match(
    lines.find((l) => l.startsWith('settle win')),
    /R0 1005 /,
  );
  t.equal(code('settle, wrong key'), 'R2');
  t.match(
    lines.find((l) => l.startsWith('settle loss')),
    /R0 995 /,
  );
  t.equal(
    lines.find((l) => l.startsWith('concurrent')),
    'concurrent: R0 R0 R0 R4',
  );
  t.match(
    lines.find((l) => l.startsWith('bet 0.2')),
    /R0 994\.7 /,
    'exact decimals',
  );
  t.match(lines.at(-1), /R0 94\.7 /);
});

t.test('the CLI refuses an unknown defect, naming the known ones', async (t) => {
  await t.rejects(spawnZoo(['--defect', 'nope']), /unknown --defect nope; one of: double-debit-resend/);
});

t.test('every defect changes what the wallet answers (in-process, one at a time)', async (t) => {
  const baseline = await inProcess({});
  for (const defect of DEFECTS) {
    const lines = await inProcess({ defect, slowMs: LATE_MS + 500 });
    const first = lines.findIndex((l, i) => l !== baseline[i]);
    t.ok(first >= 0, `${defect} shows: ${first >= 0 ? `${lines[first]} (correct: ${baseline[first]})` : 'nothing'}`);
  }
});

t.test('a defect as a child process: a resend debited twice', async (t) => {
  const zoo = await spawnZoo(['--defect', 'double-debit-resend']);
  t.teardown(() => zoo.stop());
  const b = bet(`GX-${process.pid}`, 10);
  t.match(await call(zoo.url, b), /R0 990 /);
  t.match(await call(zoo.url, b), /R0 980 /);
});

async function inProcess(o: ZooOptions): Promise<string[]> {
  const zoo = await startZooWallet(o);
  try {
    return await transcript(zoo.url);
  } finally {
    await zoo.close();
  }
}
