import Fastify from 'fastify';
import { Redis } from 'ioredis';

/**
 * A lean wallet on Redis (bench --redis --lean-redis): a yardstick for the Redis store, not a
 * wallet. Per callback it does what issue 49 called the floor of a Redis wallet, in one script: the
 * idempotency check, the balance check and change, the transaction record, a journal entry (the
 * request's headers and body, the reply) and a grading event of about the same size. Fastify parses
 * the body; nothing is validated, no rule, no money arithmetic beyond integer cents, no cache.
 * Its ratio to bare Fastify is what one process doing that much Redis work reaches on this machine.
 */
const SCRIPT = `
if redis.call('EXISTS', ARGV[2]) == 1 then return {2, redis.call('GET', ARGV[1]) or ARGV[9]} end
local balance = tonumber(redis.call('GET', ARGV[1]) or ARGV[9])
local after = balance + tonumber(ARGV[5])
if after < 0 then return {1, tostring(balance)} end
redis.call('SET', ARGV[1], tostring(after))
redis.call('SET', ARGV[2], ARGV[6])
redis.call('XADD', ARGV[3], 'MAXLEN', '~', '10000', '*', 'e', ARGV[7])
redis.call('XADD', ARGV[4], 'MAXLEN', '~', '100000', '*', 'e', ARGV[8])
return {0, tostring(after)}
`;
type Lean = Redis & { leanCommit(...args: (string | number)[]): Promise<[number, string]> };
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') as Lean;
redis.defineCommand('leanCommit', { numberOfKeys: 0, lua: SCRIPT });

interface Body {
  transaction_id?: string;
  event_type?: string;
  user_id?: string;
  timestamp?: number;
  data?: { total_bet_amount?: number; total_winloss?: number };
}
const CODES = ['R0', 'R4', 'R0'];
/** The change in cents: a bet debits its total, a settlement credits the stake and its win or loss. */
const cents = (b: Body): number =>
  b.event_type === 'bet'
    ? -Math.round((b.data?.total_bet_amount ?? 0) * 100)
    : b.event_type === 'bet_result'
      ? Math.round(((b.data?.total_bet_amount ?? 0) + (b.data?.total_winloss ?? 0)) * 100)
      : 0;

const app = Fastify({ logger: false });
app.post('/callback', async (request, res) => {
  const b = request.body as Body;
  const at = Date.now();
  const tx = JSON.stringify({ transaction_id: b.transaction_id, event_type: b.event_type, user_id: b.user_id, at });
  const user = b.user_id ?? '';
  const reply = { code: '', event_type: b.event_type, timestamp: b.timestamp, user_id: b.user_id, latest_balance: 0 };
  // The reply as both texts cite it (its balance is the script's: the sizes are what matter here).
  const cited = { status: 200, headers: { 'content-type': 'application/json' }, body: reply };
  const journal = JSON.stringify({ received_at: new Date(at).toISOString(), request: { headers: request.headers, body: b }, reply: cited });
  const event = JSON.stringify({
    t: 's',
    at,
    user,
    tx: b.transaction_id,
    event: b.event_type,
    body: b,
    headers: request.headers,
    reply: cited,
  });
  const [outcome, balance] = await redis.leanCommit(
    `lean:p:{${user}}`,
    `lean:t:{${user}}:${b.transaction_id ?? ''}`,
    'lean:journal',
    'lean:grading',
    cents(b),
    tx,
    journal,
    event,
    100_000_000,
  );
  reply.code = CODES[outcome]!;
  reply.latest_balance = Number(balance) / 100;
  return res.header('content-type', 'application/json').send(JSON.stringify(reply));
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`lean redis wallet listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
process.on('SIGTERM', () => void app.close().then(() => redis.quit().finally(() => process.exit(0))));
