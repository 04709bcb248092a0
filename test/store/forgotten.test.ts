// The forgotten ids are hashes that stores persist (file snapshots, Redis sets): their values must
// never change between versions, whichever hashing call makes them.
import { createHash } from 'node:crypto';
import t from 'tap';
import { ForgottenIds } from '../../src/ledger/forgotten.js';
import { hash64 as redisHash64 } from '../../src/backends/redis/records.js';

const keys = ['t1', 'tbet-42', 'r["p1","g1"]', 'tÿ€😀', 't'];

t.test('ForgottenIds keeps the first 8 bytes of sha256 (little-endian), as every earlier version did', async (t) => {
  const ids = new ForgottenIds();
  t.notOk(ids.has('t1'), 'nothing forgotten yet');
  for (const k of keys) ids.add(k);
  const expected = keys.map((k) => createHash('sha256').update(k).digest().readBigUInt64LE(0));
  const active = Buffer.from(ids.toRecord().active, 'base64');
  const stored = Array.from({ length: active.length / 8 }, (_, i) => active.readBigUInt64LE(i * 8));
  t.same(stored.sort(), expected.sort(), 'the stored hashes');
  for (const k of keys) t.ok(ids.has(k), `has ${k}`);
  t.notOk(ids.has('t2'), 'a never-seen id');
  const restored = ForgottenIds.fromRecord(ids.toRecord());
  for (const k of keys) t.ok(restored.has(k), `restored: has ${k}`);
});

t.test("the Redis store's hashes: the first 8 bytes of sha256 as hex", async (t) => {
  for (const k of keys) t.equal(redisHash64(k), createHash('sha256').update(k).digest().subarray(0, 8).toString('hex'), k);
});
