// A reset during a correct provider's traffic on two processes sharing one Redis: no check fails.
// A bet answered R0 as the reset takes effect was graded in the new session while its debit went to
// the ledger the reset ended: its settlement got R3 ROUND_UNKNOWN and ROUNDS_SETTLED failed.
import t from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import type { JournalStore } from '../../src/journal/journal.js';
import { openBackend } from '../../src/app/stores.js';
import type { Report } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, listen, post, result, type TestApp } from '../helpers/app.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const redis = await redisOrSkip(t);
const cluster = redis && (await clusterOrSkip(t));
if (redis && cluster) {
  const played = [
    ['each round on one process', 0],
    // A round whose bet one process answered and whose settlement the other, as the reset happens:
    // the settlement's process, not told of the new session yet, graded it in the old one (the
    // round open in the new session, ROUNDS_SETTLED failed). The reset now writes the new session
    // in its own atomic step, and a callback's grading event goes to the session Redis holds.
    ['bet on one process, settlement on the other', 1],
  ] as const;
  const on = [
    ['one Redis', { redisUrl: redis.url }],
    ['a three-master cluster', { redisCluster: cluster.nodes }],
  ] as const;
  for (const [where, connect] of on)
    for (const [name, across] of played)
      t.test(`a reset on one process during traffic on both (${name}, ${where}): no failing check on either`, async (t) => {
        const prefix = uniquePrefix('reset-traffic');
        const wallets: (TestApp<JournalStore> & { base: string })[] = [];
        for (let i = 0; i < 2; i++) {
          const store = (await openBackend('redis', { ...connect, redisPrefix: prefix })) as RedisBackend;
          const built = await buildTestApp({ players: [], grading: { round_max_age_s: 1 } }, { store });
          t.teardown(async () => {
            await built.app.close();
            await built.sim.store.close();
          });
          wallets.push({ ...built, base: await listen(built.app) });
        }
        const usd = { currency: 'USD' };
        let reset = false;
        let rounds = 0;
        // 12 correct players, each round on the other process than the last: bet, and settle once the
        // bet's R0 is read (on the same process, or the other).
        const player = async (p: number) => {
          for (let i = 0; !reset || i < 40; i++) {
            const at = `${wallets[(p + i) % 2]!.base}/callback`;
            const b = await post(at, bet(`rt-${p}`, `g${i}`, [['1', 'P', 1]], usd));
            const then = `${wallets[(p + i + across) % 2]!.base}/callback`;
            if (b.body.code === 'R0') await post(then, result(`rt-${p}`, `g${i}`, [['1', 'P', 1, 0]], usd));
            rounds++;
          }
        };
        const traffic = Array.from({ length: 12 }, (_, p) => player(p));
        while (rounds < 60) await new Promise((resolve) => setImmediate(resolve));
        t.equal((await fetch(`${wallets[1]!.base}/admin/reset`, { method: 'POST' })).status, 200);
        reset = true;
        await Promise.all(traffic);
        // Past round_max_age_s and the shared lag: every round is settled or late.
        for (const w of wallets) {
          let report: Report | undefined;
          for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 200))) {
            report = (await w.app.inject({ method: 'GET', url: '/admin/report' })).json<Report>();
            if (report.checks.every((c) => c.status !== 'pending')) break;
          }
          // (LOGIN_BEFORE_BET, a warning, may see a bet without a login in the new session: a reset forgets logins)
          const failed = report!.checks.filter((c) => c.status === 'fail' && c.severity === 'error');
          t.same(
            failed.map((c) => c.id),
            [],
            JSON.stringify(failed.map((c) => c.violations[0]?.message)),
          );
        }
      });
}
