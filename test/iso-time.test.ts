// isoTime is the journal's received_at / replied_at: it must be exactly toISOString's text.
import t from 'tap';
import { isoTime } from '../src/text/iso-time.js';

const times = [
  0,
  1,
  9,
  10,
  99,
  100,
  999,
  1000,
  1001,
  Date.UTC(2026, 10, 23, 19, 59, 59, 999),
  Date.UTC(2026, 10, 23, 20, 0, 0, 0),
  Date.UTC(2024, 1, 29, 23, 59, 59, 5),
  Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  Date.now(),
];
for (const at of times) t.equal(isoTime(at), new Date(at).toISOString(), `${at}`);

t.test('the same second twice, then the next, then back', async (t) => {
  const base = Date.UTC(2026, 10, 23, 19, 0, 0, 0);
  for (const at of [base + 5, base + 950, base + 1000, base + 1, base + 1999, base - 1])
    t.equal(isoTime(at), new Date(at).toISOString(), `${at}`);
});

t.test('now, by default', async (t) => {
  const before = Date.now();
  const text = isoTime();
  const at = Date.parse(text);
  t.ok(at >= before && at <= Date.now(), text);
});
