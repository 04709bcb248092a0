// A callback answered at once has its journal entry written by its commit script, from the text
// RedisJournal.seal makes (src/journal/redis-journal.ts). That text must be exactly what `begin` then
// `finish` keep for the same entry, whatever a caller sends: it is one journal, whichever path wrote it.
import t from 'tap';
import { handleCallback } from '../../src/core/handle.js';
import { compileScenario } from '../../src/core/scenario/scenario.js';
import { openSimulator } from '../../src/app/compose.js';
import { MemoryBackend } from '../../src/backends/memory/memory.js';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { RedisJournal } from '../../src/journal/redis-journal.js';
import { matchFields } from '../../src/journal/match.js';
import { HEADERS, TEST_SCENARIO } from '../helpers/app.js';
import { before, type Begun, tricky } from '../helpers/journal-text.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const redis = await redisOrSkip(t);
if (redis) {
  t.test("seal's text is the finished entry's JSON, for bodies a caller may send", async (t) => {
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('jseal') })) as RedisBackend;
    t.teardown(() => store.close());
    const journal = new RedisJournal(store.client, store.prefix);
    const sim = await openSimulator(compileScenario(TEST_SCENARIO), new MemoryBackend());
    const timings = [
      { replied_at: 'later', duration_ms: 12, client_gone: false },
      { replied_at: '', duration_ms: 0, client_gone: true },
    ];
    const upstream = {
      url: 'http://127.0.0.1:1/cb',
      forwarded: true,
      duration_ms: 3,
      status: 200,
      headers: { 'api-key': 'x' },
      body: { code: 'R0' },
    };
    let checked = 0;
    for (const [name, body] of tricky) {
      for (const headers of [HEADERS, { ...HEADERS, 'api-key': 'wrong-key', 'x-odd': ['a', 'b\u00e9'] as never }, {}]) {
        const out = await handleCallback(sim, { method: 'POST', url: '/callback?q=\u00e9', headers, body });
        const plain: Begun = Object.assign(out.entry, { received_at: new Date(0).toISOString() });
        // The fields a rule and proxy mode set, given values in place (the entry keeps its one shape).
        const full: Begun = Object.assign({ ...plain }, { rule: { index: 2, name: 'r "2"' }, reason: 'R4 \u0000', upstream });
        for (const [variant, entry] of [
          ['', plain],
          [' (a rule, a reason, an upstream leg)', full],
        ] as const) {
          for (const done of timings) {
            const sealed = journal.seal(entry, done)!;
            const id = 40 + checked++;
            const stored = sealed.stored(id);
            t.equal(stored.text, before(id, entry, done), `${name}${variant}: the same text`);
            t.equal(sealed.entry.chars, before(0, entry, done).length - 1, `${name}${variant}: its length without the id's digits`);
            // The filter fields are the text's own (a filter reads them without parsing it).
            t.same(
              { ...stored, text: undefined },
              { id, ...matchFields(JSON.parse(stored.text)), text: undefined },
              `${name}${variant}: the text's fields`,
            );
          }
        }
      }
    }
    t.ok(checked >= 40, `${checked} entries checked`);
  });
}
