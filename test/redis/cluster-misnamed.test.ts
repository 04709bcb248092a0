// --redis-cluster naming nodes that answer but serve no cluster is refused at once, naming why and
// the fix (docs/redis-failures.md: what waiting cannot mend is refused at once), not after 10 s as
// "does not answer": a single Redis, and a cluster node whose slots were never assigned.
import t from 'tap';
import { connectRedis } from '../../src/backends/redis/connection.js';
import { CLUSTER_SCHEME } from '../../src/backends/redis/defaults.js';
import { redisMissing, startRedis } from '../helpers/redis.js';
import { skip } from '../helpers/required.js';

const missing = redisMissing();
if (missing) skip(t, 'the --redis-cluster refusals', missing);
else {
  t.test('a single Redis given as --redis-cluster: refused at once, pointing to --redis-url', async (t) => {
    const single = await startRedis(t);
    const started = performance.now();
    await t.rejects(connectRedis(`${CLUSTER_SCHEME}127.0.0.1:${single.port}`), {
      message: new RegExp(`Redis at 127.0.0.1:${single.port} is not a cluster node \\(cluster_enabled:0\\): use --redis-url`),
    });
    t.ok(performance.now() - started < 8000, 'before the 10 s start-up wait ran out');
  });

  t.test('a cluster node whose slots were never assigned: refused at once, naming cluster create', async (t) => {
    const node = await startRedis(t, { cluster: true });
    await t.rejects(connectRedis(`${CLUSTER_SCHEME}127.0.0.1:${node.port}`), {
      message:
        /serves no keys \(cluster_state:fail, 0 of 16384 slots assigned\): create it \(redis-cli --cluster create .* --cluster-yes\)/,
    });
  });
}
