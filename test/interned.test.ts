// What a journal entry keeps of a request's texts is shared with the entries before it when equal
// (src/kernel/interned.ts): the same values, in the same order, whatever a caller sends.
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { interned, internedHeaders } from '../src/kernel/interned.js';
import { lastTwo } from '../src/kernel/last-two.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// Texts made at run time, as a parser makes them: equal, but separate strings in memory.
const fresh = (s: string) => Buffer.from(s).toString();

/** Bytes of heap the values of `make()` hold, kept 5,000 times (a string's identity is not observable otherwise). */
function heldBytes(make: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: 5000 }, make);
  gc();
  const held = process.memoryUsage().heapUsed - before;
  kept.length = 0;
  return held / 5000;
}

t.test('a caller sending the same headers every time: their copies hold the texts once', async (t) => {
  const headers = () => ({
    'content-type': fresh('application/json'),
    'x-long': fresh('v'.repeat(200)),
    'api-key': fresh('k'.repeat(100)),
  });
  const copies = heldBytes(() => internedHeaders(headers()));
  const raw = heldBytes(headers);
  t.ok(raw > 300, `each request's own texts: ${raw.toFixed(0)} bytes`);
  t.ok(copies < 200, `its copy, the texts shared: ${copies.toFixed(0)} bytes`);
  const long = () => internedHeaders({ 'x-long': fresh('v'.repeat(300)) });
  t.ok(heldBytes(long) > 300, 'a text past 256 characters is not kept for reuse: each copy holds its own');
});

t.test('kinds are bounded: a caller naming twenty thousand headers leaves at most 64 texts kept', async (t) => {
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 20_000; i++) interned(`x-${i}`, fresh(`${i % 10}`.repeat(250)));
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  // 20,000 kept would be over 5 MB; 64 of them, with the map's own room, some 30 KB (the heap's own
  // movements under load reach a few hundred KB).
  t.ok(grown < 1_000_000, `the heap grew by ${grown} bytes`);
});

t.test('a copy of the headers: every name in its order, every value equal, lists and absent ones as they were', async (t) => {
  const raw = { host: fresh('127.0.0.1:1'), 'set-cookie': ['a=1', 'b=2'], 'api-key': fresh('secret-key'), gone: undefined };
  const copy = internedHeaders(raw);
  t.not(copy, raw);
  t.strictSame(Object.keys(copy), Object.keys(raw));
  t.strictSame(copy, raw);
  t.equal(copy['set-cookie'], raw['set-cookie'], 'a list as it was');
  const again = internedHeaders({ ...raw, host: fresh('127.0.0.1:1') });
  t.equal(JSON.stringify(again), JSON.stringify(raw), 'the next request: the same text (shared: the first test measures it)');
  const odd = JSON.parse('{"a":"1","__proto__":"x","b":"2"}') as Record<string, string>;
  t.equal(JSON.stringify(internedHeaders(odd)), JSON.stringify(odd), 'an own __proto__ header is copied as one');
});

t.test('lastTwo makes a value once per key while the key is one of the last two asked for', async (t) => {
  const made: string[] = [];
  const of = lastTwo((k: string) => (made.push(k), `v-${k}`));
  const asked = ['a', 'a', 'b', 'a', 'b', 'c', 'a', 'c', 'c'];
  t.strictSame(
    asked.map((k) => of(k)),
    asked.map((k) => `v-${k}`),
  );
  t.strictSame(made, ['a', 'b', 'c', 'a'], 'made again only once pushed out by two others');
  const objects = lastTwo((o: object) => ({ of: o }));
  const key = {};
  t.equal(objects(key), objects(key), 'an object: by identity, the same value');
  t.not(objects({}), objects({}), 'another object, equal or not: another value');
});
