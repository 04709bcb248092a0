// bench/lean-redis-server.ts, the bench's yardstick for the Redis store (`bench --redis --lean-redis`):
// its figures are read as a wallet's, so it must answer like one, over a real redis-server.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../../src/kernel/paths.js';
import { redisOrSkip } from '../helpers/redis.js';

const redis = await redisOrSkip(t);
if (redis) {
  t.test('a bet debits once, a resend is a replay, a settlement credits the stake and the win', async (t) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/bench/lean-redis-server.js')], {
      env: { ...process.env, REDIS_URL: redis.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.teardown(() => child.kill('SIGKILL'));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const send = async (body: object) => {
      const res = await fetch(`${url}/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { code: string; latest_balance: number };
    };
    const envelope = { user_id: 'y1', timestamp: 1, feedback_data: 'f' };
    const bet = { ...envelope, transaction_id: 'b1', event_type: 'bet', data: { game_no: 'g1', total_bet_amount: 2.5 } };
    t.same(await send(bet), { code: 'R0', event_type: 'bet', timestamp: 1, user_id: 'y1', latest_balance: 999_997.5 });
    t.equal((await send(bet)).latest_balance, 999_997.5, 'the resend changes nothing');
    const win = {
      ...envelope,
      transaction_id: 'r1',
      event_type: 'bet_result',
      data: { game_no: 'g1', total_bet_amount: 2.5, total_winloss: 0.5 },
    };
    t.equal((await send(win)).latest_balance, 1_000_000.5, 'the stake back and the win');
    const broke = { ...envelope, transaction_id: 'b2', event_type: 'bet', data: { game_no: 'g2', total_bet_amount: 2_000_000 } };
    t.equal((await send(broke)).code, 'R4', 'more than the balance: refused');
  });
}
