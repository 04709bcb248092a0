import type { Redis } from 'ioredis';
import type { Seal } from '../../ledger/store.js';
import type { CommitContext } from './callback-commit.js';
import { isCluster } from './cluster.js';
import { type ClusterClient, clusterCommit, defineClusterScripts } from './cluster-commit.js';
import { coalesceWrites } from './coalesce.js';
import { COMMIT, commitArgs, type CommitReply, type Expected, type Writes } from './commit.js';
import { connectRedis } from './connection.js';
import type { Generation } from './generation.js';
import { RedisLink } from './link.js';
import { LuaScript } from './script-call.js';
import { CAS, READ } from './records.js';
import type { Watch } from './view.js';

/** The commit script, called with its arguments written out in one pass (script-call.ts). */
const COMMIT_SCRIPT = new LuaScript(COMMIT);

/**
 * A connection ready for stores: their scripts defined (EVALSHA: each is sent once per connection),
 * its writes coalesced (coalesce.ts; one socket per connection: a cluster's many are not).
 */
export async function connectStore(url: string, timeoutMs: number): Promise<RedisLink> {
  const client = await connectRedis(url, { commandTimeout: timeoutMs, connectTimeout: timeoutMs });
  client.defineCommand('walletCas', { numberOfKeys: 0, lua: CAS });
  client.defineCommand('walletRead', { lua: READ });
  if (isCluster(client)) defineClusterScripts(client, CAS);
  else coalesceWrites(client);
  return new RedisLink(client, url, timeoutMs);
}

/** How a callback's commit is sent: the one script on a single Redis (commit.ts), a cluster's steps (cluster-commit.ts). */
export function commitSender(link: RedisLink, at: Generation): CommitContext['send'] {
  const exchange = <T>(sent: Promise<T>) => link.exchange(sent);
  if (isCluster(link.client)) {
    const client = link.client as ClusterClient;
    return (watch: Watch, expected: Expected, writes: Writes, seal: Seal | undefined) =>
      clusterCommit(client, at, watch, expected, writes, seal, exchange);
  }
  const client = link.client as Redis;
  return (watch: Watch, expected: Expected, writes: Writes, seal: Seal | undefined) =>
    exchange(COMMIT_SCRIPT.call<CommitReply>(client, commitArgs(watch, expected, writes, seal)));
}
