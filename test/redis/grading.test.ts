// One session and one verdict across processes: two wallets (two simulators and apps over real
// sockets, each with its own Redis connections) on one Redis grade every callback alike, whichever
// of them got it, and begin a new session together.
import t, { type Test } from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import type { JournalStore } from '../../src/journal/journal.js';
import type { Report } from '../../src/protocol/types.generated.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, HEADERS, listen, login, result, type TestApp } from '../helpers/app.js';
import { post } from '../helpers/net.js';
import { eventually } from '../helpers/spawn-cli.js';
import fc from 'fast-check';
import { bodies, RULES as GENERATED_RULES, steps, verdict as sameParts } from '../grading/session-property.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { startCluster } from '../helpers/redis-cluster.js';

const redis = await redisOrSkip(t);
if (redis) {
  // A single Redis; and, in the full matrix (npm run test:full), a three-master Redis Cluster (--redis-cluster).
  const targets: [string, { redisUrl?: string; redisCluster?: string }][] = [['', { redisUrl: redis.url }]];
  if (process.env.WALLET_SIM_FULL_MATRIX) targets.push([' (Redis Cluster)', { redisCluster: (await startCluster(t)).nodes }]);
  for (const [label, where] of targets) {
    const RULES = [
      { name: 'lost bet reply', when: { event_type: 'bet' as const, user_id: 'lost' }, then: { drop_connection: true }, times: 1 },
      { name: 'broke', when: { event_type: 'bet' as const, user_id: 'broke' }, then: { code: 'R4' as const, latest_balance: 5 }, times: 1 },
    ];

    async function twoWallets(t: Test) {
      const prefix = uniquePrefix('grading');
      const wallets: (TestApp<JournalStore> & { base: string })[] = [];
      for (let i = 0; i < 2; i++) {
        const store = (await openBackend('redis', { ...where, redisPrefix: prefix })) as RedisBackend;
        const built = await buildTestApp({ rules: RULES }, { store });
        t.teardown(async () => {
          await built.app.close();
          await built.sim.store.close();
        });
        wallets.push({ ...built, base: await listen(built.app) });
      }
      return wallets;
    }

    const report = async (w: TestApp<JournalStore>): Promise<Report> =>
      (await w.app.inject({ method: 'GET', url: '/admin/report' })).json();
    /** What must be the same whichever process is asked. */
    const verdict = (r: Report) =>
      JSON.stringify([
        r.session.id,
        r.summary,
        r.checks.map((c) => [c.id, c.status, c.exercised, c.violations.map((v) => v.message)]),
        r.findings,
      ]);
    const status = (r: Report, id: string) => r.checks.find((c) => c.id === id)!.status;
    const USD = { currency: 'USD' };

    t.test(`callbacks split across two processes: one verdict, from either${label}`, async (t) => {
      const [a, b] = await twoWallets(t);
      const cb = (w: { base: string }, body: object) => post(`${w.base}/callback`, body, HEADERS, 5000);
      // A logs in, B bets and settles: the login counts for the bet.
      await cb(a!, login('p1'));
      await cb(b!, bet('p1', 'G1', [['1', 'P', 10]], USD));
      await cb(b!, result('p1', 'G1', [['1', 'P', 10, 5]], USD));
      // A lost bet reply on A, resent unchanged through B.
      await cb(a!, login('lost'));
      const lost = bet('lost', 'G2', [['1', 'P', 10]], USD);
      t.ok((await cb(a!, lost)).error, 'the first reply is dropped');
      await new Promise((r) => setTimeout(r, 600)); // a back-off above min_retry_gap_ms (500 ms)
      t.equal(((await cb(b!, lost)).body as { code: string }).code, 'R0', 'the resend replays R0');
      await cb(b!, result('lost', 'G2', [['1', 'P', 10, -10]], USD));
      // R4 on A, the same bet under a new transaction_id through B.
      await cb(a!, login('broke'));
      t.equal(((await cb(a!, bet('broke', 'G3', [['1', 'P', 10]], USD))).body as { code: string }).code, 'R4');
      await cb(b!, bet('broke', 'G3', [['1', 'P', 10]], USD));

      let ra: Report | undefined;
      let rb: Report | undefined;
      const same = await eventually(async () => {
        [ra, rb] = [await report(a!), await report(b!)];
        return verdict(ra) === verdict(rb) && ra.checks.find((c) => c.id === 'NO_RETRY_AFTER_REFUSAL')!.status === 'fail';
      }, 10_000);
      t.ok(same, 'the same report from both processes');
      t.equal(status(ra!, 'LOGIN_BEFORE_BET'), 'pass', 'a login through A counts for bets through B');
      t.equal(status(ra!, 'LOST_REPLY_RETRIED'), 'pass', 'a lost reply on A resent through B');
      t.equal(status(ra!, 'RETRY_UNCHANGED'), 'pass');
      t.equal(status(ra!, 'NO_RETRY_AFTER_REFUSAL'), 'fail', 'a refusal on A resent under a new id through B');
      t.equal(status(ra!, 'ONE_SETTLEMENT_PER_ROUND'), 'pass');
      // What the pictures draw travels through the stream too: each reply's fate, when the check decided.
      const refusal = rb!.checks.find((c) => c.id === 'NO_RETRY_AFTER_REFUSAL')!.violations[0]!;
      t.match(
        refusal.evidence,
        [{ event_type: 'bet', fate: 'written', outcome: 'R4' }, { event_type: 'bet' }],
        'the refusal, as process B folded it',
      );
      t.equal(refusal.decided_at, refusal.evidence![1]!.received_at, 'decided when the new id arrived');
    });

    t.test(`a reset through one process begins the session of both${label}`, async (t) => {
      const [a, b] = await twoWallets(t);
      await post(`${a!.base}/callback`, bet('p1', 'G1', [['1', 'P', 10]], USD), HEADERS, 5000); // no login: fails LOGIN_BEFORE_BET
      t.ok(await eventually(async () => status(await report(b!), 'LOGIN_BEFORE_BET') === 'fail', 10_000), 'seen by B');
      const before = (await report(a!)).session.id;
      t.ok((await a!.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode < 300, 'reset through A');
      const rb = await report(b!);
      t.not(rb.session.id, before, 'B names the new session');
      t.equal(rb.session.id, (await report(a!)).session.id, 'the same one as A');
      t.equal(status(rb, 'LOGIN_BEFORE_BET'), 'not_exercised', 'nothing of the old session');
    });

    t.test(`property: a generated session split across two processes gets the verdict of one process${label}`, async (t) => {
      let run = 0;
      const play = async (sent: object[], split: boolean[]): Promise<[Report, Report, Report]> => {
        const prefix = uniquePrefix('split');
        const apps: TestApp<JournalStore>[] = [];
        for (let i = 0; i < 2; i++) {
          const store = (await openBackend('redis', { ...where, redisPrefix: prefix })) as RedisBackend;
          apps.push(await buildTestApp({ rules: GENERATED_RULES }, { store }));
        }
        const one = await buildTestApp({ rules: GENERATED_RULES });
        try {
          const [urlA, urlB, urlOne] = [await listen(apps[0]!.app), await listen(apps[1]!.app), await listen(one.app)];
          for (const [i, body] of sent.entries()) {
            await post(`${split[i % split.length] ? urlB : urlA}/callback`, body, HEADERS, 5000);
            await post(`${urlOne}/callback`, body, HEADERS, 5000);
          }
          const alone = await report(one);
          let pair: [Report, Report] | undefined;
          await eventually(async () => {
            pair = [await report(apps[0]!), await report(apps[1]!)];
            return sameParts(pair[0]) === sameParts(alone) && sameParts(pair[1]) === sameParts(alone);
          }, 5000);
          return [alone, ...pair!];
        } finally {
          for (const w of [...apps, one]) await w.app.close();
          for (const w of apps) await w.sim.store.close();
        }
      };
      await fc.assert(
        fc.asyncProperty(steps, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), async (s, split) => {
          const [alone, a, b] = await play(bodies(s, `split${++run}`), split);
          return sameParts(a) === sameParts(alone) && sameParts(b) === sameParts(alone);
        }),
        { numRuns: 8, seed: 20261125 },
      );
      t.pass('8 generated sessions, each split across two processes');
    });
  }
}
