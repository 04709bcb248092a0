// A local three-master Redis Cluster per test file (no replicas, `cluster-require-full-coverage no`):
// three redis-servers from test/helpers/redis.ts, their slots assigned and met with CLUSTER commands.
import { Redis } from 'ioredis';
import type { Test } from 'tap';
import { skip } from './required.js';
import { redisMissing, type RedisServer, startRedis } from './redis.js';

export interface RedisCluster {
  /** `host:port,host:port,host:port`: what --redis-cluster takes. */
  nodes: string;
  servers: RedisServer[];
  /** The server that serves `key`'s slot. */
  serverOf(key: string): Promise<RedisServer>;
  /** Restarts `server` without its data (its slots kept in its nodes.conf), once every node sees the cluster ok again. */
  restartEmpty(server: RedisServer): Promise<void>;
}

const SLOTS = 16_384;

/** Polls `check` until it holds (a state, not a time): every 50 ms, failing after `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`the test cluster: ${what} not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the cluster (stopped in teardown), or undefined when redis-server is missing (the file's tests are skipped). */
export async function clusterOrSkip(t: Test): Promise<RedisCluster | undefined> {
  const missing = redisMissing();
  if (missing) {
    skip(t, 'the Redis Cluster tests of this file', missing);
    return undefined;
  }
  return startCluster(t);
}

/** Every node of `servers` answers `cluster_state:ok` and sees three masters. */
async function allOk(servers: RedisServer[]): Promise<void> {
  const clients = servers.map((s) => new Redis(s.port, '127.0.0.1', { lazyConnect: false, maxRetriesPerRequest: 1 }));
  try {
    for (const c of clients)
      await until('cluster_state:ok on every node', async () => (await c.cluster('INFO')).includes('cluster_state:ok'));
    // Every node knows the three masters' slots (a client asking any of them is routed right).
    for (const c of clients)
      await until('every node sees three masters', async () => ((await c.cluster('SLOTS')) as unknown[]).length === 3);
  } finally {
    for (const c of clients) c.disconnect();
  }
}

export async function startCluster(t: Test): Promise<RedisCluster> {
  const servers = await Promise.all([0, 1, 2].map(() => startRedis(t, { cluster: true })));
  const clients = servers.map((s) => new Redis(s.port, '127.0.0.1', { lazyConnect: false, maxRetriesPerRequest: 1 }));
  try {
    const per = Math.ceil(SLOTS / servers.length);
    await Promise.all(
      clients.map((c, i) => c.call('CLUSTER', 'ADDSLOTSRANGE', String(i * per), String(Math.min(SLOTS, (i + 1) * per) - 1))),
    );
    for (const s of servers.slice(1)) await clients[0]!.call('CLUSTER', 'MEET', '127.0.0.1', String(s.port), String(s.busPort));
  } finally {
    for (const c of clients) c.disconnect();
  }
  await allOk(servers);
  const per = Math.ceil(SLOTS / servers.length);
  return {
    nodes: servers.map((s) => `127.0.0.1:${s.port}`).join(','),
    servers,
    async serverOf(key: string) {
      const client = new Redis(servers[0]!.port, '127.0.0.1');
      try {
        return servers[Math.floor(Number(await client.cluster('KEYSLOT', key)) / per)]!;
      } finally {
        client.disconnect();
      }
    },
    async restartEmpty(server) {
      await server.restart();
      await allOk(servers);
    },
  };
}
