import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Generation } from './generation.js';
import { hashTag, storedId } from './keys.js';
import type { Seal } from '../../ledger/store.js';
import { type CommitReply, type Expected, sealArgs, type Writes } from './commit.js';
import { casArgs, type CasDocument, type Op, orderEntry, unlisted, unlistedClaim } from './records.js';
import type { TransactionRecord } from '../../ledger/change.js';
import { ABSENT_PLAYER, admittedKey, CLAIM, FORGOTTEN, GIVE_BACK, PLAYER_COMMIT, SESSION_COMMIT } from './cluster-scripts.js';
import type { Watch } from './view.js';

export type ClusterClient = Redis & {
  walletAbsent(players: string, admitted: string, user: string, max: string, admit: string): Promise<[number, number]>;
  walletCasAt(routeKey: string, ...args: (string | number)[]): Promise<number>;
  walletClaim(
    claim: string,
    gen: string,
    marker: string,
    forgotten: string,
    ...args: (string | number)[]
  ): Promise<[1, string?] | [0, (string | null)[], number[]?]>;
  walletForgotten(forgotten: string, ...args: (string | number)[]): Promise<number[]>;
  walletGiveBack(
    claim: string,
    admitted: string,
    withdrawn: string,
    pending: string,
    replaced: string,
    user: string,
  ): Promise<[string | null]>;
  walletPlayerCommit(keys: number, ...args: (string | number)[]): Promise<[1] | [0, (string | null)[]]>;
  walletSessionCommit(
    keys: number,
    ...args: (string | number)[]
  ): Promise<[1, number, string[]] | [0, (string | null)[], number, (number[] | null)?, (string | null)?]>;
};

/** The cluster's scripts; `cas`: the compare-and-set's text (records.ts), routed by a key of the session's slot. */
export function defineClusterScripts(client: Redis, cas: string): void {
  client.defineCommand('walletCasAt', { numberOfKeys: 1, lua: cas });
  client.defineCommand('walletClaim', { numberOfKeys: 4, lua: CLAIM });
  client.defineCommand('walletForgotten', { numberOfKeys: 1, lua: FORGOTTEN });
  client.defineCommand('walletAbsent', { numberOfKeys: 2, lua: ABSENT_PLAYER });
  client.defineCommand('walletGiveBack', { numberOfKeys: 3, lua: GIVE_BACK });
  client.defineCommand('walletPlayerCommit', { lua: PLAYER_COMMIT });
  client.defineCommand('walletSessionCommit', { lua: SESSION_COMMIT });
}

const flat = (ops: readonly Op[]): (string | number)[] => [ops.length, ...ops.flatMap((op) => [op.length, ...op])];

/** The positions of a Watch's keys (view.ts): generation, marker, player, transaction, claim, round, settled round. */
const CLAIM_AT = 4;

/** Each claim's attempt (records.ts, unlistedClaim): this process, then a count. */
const PROCESS = `${process.pid}.${randomBytes(6).toString('base64url')}`;
let attempts = 0;

/**
 * The commit of one callback on a cluster, in the steps cluster-scripts.ts describes, answering as
 * the single-Redis script does (commit.ts):
 * {1, the journal id} or {0, the current values as a read}.
 */
export async function clusterCommit(
  client: ClusterClient,
  at: Generation,
  watch: Watch,
  expected: Expected,
  { ops, count, trim }: Writes,
  seal: Seal | undefined,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<CommitReply> {
  const { watched, required } = watch;
  const values = [...expected.values];
  let full = expected.full;
  const flags = [...expected.flags];
  const failed = (listed = 0): CommitReply => [0, values, flags, listed, required.length, full];
  // A failed step in a player's slot answers the generation as it is now (read in the session's slot): decided on a
  // generation a reset by another process ended, whose sweep took the player's record before its players set, the
  // record gone but listed is not Redis's loss; the callback follows the reset and decides again on the new ledger.
  const failedNow = async (listed: number): Promise<CommitReply> => {
    const [gen, marker] = await exchange(client.mget(at.genKey, at.markerKey));
    [values[0], values[1]] = [gen ?? null, marker ?? null];
    return failed(listed);
  };
  // The forgotten flags as decided on (FLAGS), checked by the claim and the session's step.
  const assumed = [watch.hashes.length, ...watch.hashes, ...expected.flags];
  // A player decided on as absent, or found absent by its script: still listed in the session's
  // players means its master lost it (restarted without persistence), never a new player. And one
  // more player must not pass --tenant-players: a player the callback creates is admitted here
  // (ABSENT_PLAYER), so processes racing to add players never pass the bound together.
  const { playersKey, user, maxPlayers } = watch;
  // (the callback creates the player: step 3 lists it; its admission goes then)
  const creates = ops.some(([command, key, member]) => command === 'SADD' && key === playersKey && member === user);
  let admitted = false; // (this attempt's admission of the player it creates: given back if a later step fails)
  const absent = async (admit: boolean) => {
    const [listed, now] = await exchange(client.walletAbsent(playersKey, admittedKey(playersKey), user, maxPlayers, admit ? '1' : ''));
    full = now;
    admitted ||= admit && maxPlayers !== '' && listed === 0 && now === 0;
    return listed;
  };
  // A later step failed: the callback is decided again, and may now refuse. What this attempt set
  // for it goes back first (its claim, its admission), so a refusal holds nothing against another
  // player; a claim another process set since stays, and is the claim decided on next.
  const giveBack = async (pending: string, replaced: string) => {
    if (!pending && !admitted) return;
    const [now] = await exchange(
      client.walletGiveBack(claimKey, admittedKey(playersKey), withdrawnKey(), pending, replaced, admitted ? user : ''),
    );
    if (pending) values[CLAIM_AT] = now;
    admitted = false;
  };
  const claimKey = watched[CLAIM_AT]!;
  if (values[2] === null) {
    const listed = await absent(creates);
    // Listed: created by another process since this one decided (its cache was stale), or lost:
    // the player's record now tells which (absent, lost; the next decision says so).
    if (listed === 1) values[2] = await exchange(client.get(watched[2]!));
    if (listed === 1 || full !== expected.full) return failedNow(listed);
  }
  const sessionTag = hashTag(at.genKey);
  // Where withdrawn attempts of this id are kept (GIVE_BACK): `withdrawn:<id>` beside `claim:<id>`, never another id's claim.
  const withdrawnKey = () => {
    const id = claim ? storedId((JSON.parse(claim[2]!) as { transaction_id: string }).transaction_id) : '';
    return `${claimKey.slice(0, claimKey.length - id.length - 'claim:'.length)}withdrawn:${id}`;
  };
  const claim = ops.find((op) => op[1] === claimKey);
  const session = ops.filter((op) => op !== claim && hashTag(op[1]!) === sessionTag);
  // The player's callbacks counted (RedisShared.takeCount): the count is the session's.
  if (count) session.push(['HINCRBY', count[0], count[1], String(count[2])]);
  if (creates && maxPlayers !== '') session.push(['HDEL', admittedKey(playersKey), user]);
  // A player that exists is listed again (SADD of a member: nothing): a process that died between
  // a player's first script and the session's left it created but unlisted, and its admission held.
  else if (values[2] !== null) {
    session.push(['SADD', playersKey, user]);
    if (maxPlayers !== '') session.push(['HDEL', admittedKey(playersKey), user]);
  }
  const player = ops.filter((op) => hashTag(op[1]!) !== sessionTag);
  let pending = '';
  const replaced = values[CLAIM_AT] ?? ''; // (what step 1 expects, and replaces)
  if (claim) {
    const [gen, marker] = [values[0] ?? '', values[1] ?? ''];
    pending = unlistedClaim(claim[2]!, `${PROCESS}.${++attempts}`);
    const reply = await exchange(
      client.walletClaim(claimKey, at.genKey, at.markerKey, watch.forgottenKey, replaced, pending, gen, marker, ...assumed),
    );
    if (reply[0] === 0) {
      [values[CLAIM_AT], values[0], values[1]] = [reply[1][0] ?? null, reply[1][1] ?? null, reply[1][2] ?? null];
      if (reply[2]) flags.splice(0, flags.length, ...reply[2]); // (forgotten meanwhile: refused, never applied again)
      await giveBack('', '');
      return failed();
    }
    if (reply[1]) pending = ''; // (a claim listed already stays as it was: not this attempt's to give back)
    values[CLAIM_AT] = reply[1] ?? pending;
  }
  // The transaction listed in `order` by the step 3 that finds its claim still unlisted: this
  // callback's, or a resend's (a replay) after the step 3 of the callback that applied it never ran.
  const relist = !claim && unlisted(values) ? [relisting(at, values[0]!, values[3]!)] : [];
  const listing = [...session.filter(([command]) => command === 'RPUSH'), ...relist];
  const writes = session.filter(([command]) => command !== 'RPUSH');
  const own = [2, 3, ...(watched.length > 5 ? [5, 6] : [])];
  const checked = await exchange(
    client.walletPlayerCommit(own.length, ...own.map((i) => watched[i]!), ...own.map((i) => values[i] ?? ''), ...flat(player)),
  );
  if (checked[0] === 0) {
    own.forEach((i, k) => (values[i] = checked[1][k] ?? null));
    await giveBack(pending, replaced);
    return failedNow(values[2] === null ? await absent(false) : 0);
  }
  const fence = await exchange(
    client.walletSessionCommit(
      2 + required.length,
      at.genKey,
      at.markerKey,
      ...required,
      values[0] ?? '',
      values[1] ?? '',
      claim ? '' : claimKey,
      claim ? '' : (values[CLAIM_AT] ?? ''),
      watch.forgottenKey,
      ...assumed,
      ...flat(writes),
      listing.length ? claimKey : '',
      ...flat(listing),
      ...(trim ? [1, ...trim] : [0]),
      ...sealArgs(seal),
    ),
  );
  if (fence[0] === 0) {
    const [[gen, marker], present, now] = [fence[1], fence[2], fence[3]];
    if (present < required.length) throw at.lost('no scenario key');
    if (now) flags.splice(0, flags.length, ...now); // (forgotten meanwhile: decided again)
    if (fence.length > 4) values[CLAIM_AT] = fence[4] ?? null; // (claimed meanwhile, or unseen: decided again)
    // A reset came first: what the player's script wrote went to the ledger the reset ended (its
    // keys are swept, and nothing reads them); the failed check makes the callback decide again, on the new one.
    values[0] = gen ?? null;
    values[1] = marker ?? null;
    return failed();
  }
  // What the trim forgot in the session's slot goes from the players' slots after the reply (a key
  // left by a process gone meanwhile is read as the record it is: its id is forgotten already).
  const apart = fence[2];
  if (apart.length) void Promise.all(apart.map((key) => client.del(key))).catch(() => undefined);
  return [1, fence[1]];
}

/** The listing in `order` of a transaction applied to the player (its record: `txn`) in generation `gen`. */
function relisting(at: Generation, gen: string, txn: string): Op {
  return ['RPUSH', at.keys(Number(gen)).order, orderEntry(JSON.parse(txn) as TransactionRecord)];
}

/**
 * An admin write (a seed, an update, a reset) on a cluster: the check (generation, marker) and the
 * session's writes in one script in its slot; the other writes (each a key of its own) apart. A write
 * that starts a ledger (a seed, a reset: it sets the generation) writes its records first, in a
 * generation of its own that nobody reads before the check flips to it: no process ever sees the new
 * ledger before all its records are there, and of processes seeding or resetting at once, the losers
 * wrote only into their own generations (deleted then), never into the one
 * the winner serves. An update's records also go before the check: they are read only once listed (a
 * check that then fails leaves them in a generation that ended, or a player created but unlisted,
 * listed by its next callback: never a player listed but gone).
 */
export async function clusterCas(
  client: ClusterClient,
  at: Generation,
  doc: CasDocument,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<boolean> {
  const tag = hashTag(at.genKey);
  const session = doc.ops.filter((op) => hashTag(op[1]!) === tag);
  const apart = doc.ops.filter((op) => hashTag(op[1]!) !== tag);
  await Promise.all(apart.map((op) => exchange(client.call(...op))));
  const done = (await exchange(client.walletCasAt(at.genKey, ...casArgs({ expect: doc.expect, ops: session })))) === 1;
  // A ledger that lost the race: its own generation's records go (nothing reads them).
  if (!done && session.some(([, key]) => key === at.genKey)) void Promise.all(apart.map((op) => client.del(op[1]!))).catch(() => undefined);
  return done;
}
