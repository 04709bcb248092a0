// The pieces a large ledger read is made of, tested directly: the row's time as text (the same as
// toISOString, at a fraction of its cost) and how reads running at once share a turn of the event loop.
import t from 'tap';
import { ledgerTime } from '../src/ledger/ledger-entry.js';
import { nextSlice, sliceShare, TURN_MS } from '../src/ledger/slices.js';

t.test('ledgerTime is toISOString', async (t) => {
  const DAY = 86_400_000;
  const edges = [0, 1, 9, 10, 99, 100, 999, 1000, DAY - 1, DAY, DAY + 1, 951_782_400_000 /* 2000-02-29 */, 4_107_542_399_999];
  edges.push(253_402_300_799_999, 253_402_300_800_000, 253_402_300_800_001, -1, -DAY - 1, 1.5, 8.64e15);
  let seed = 7;
  const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
  for (let i = 0; i < 20_000; i++) edges.push(Math.floor(random() * 253_402_300_800_000));
  // Rows of one session, a few ms apart across midnight (the day's text is kept between rows).
  for (let ms = 1_764_201_599_000; ms < 1_764_201_601_000; ms += 7) edges.push(ms);
  const wrong = edges.filter((ms) => ledgerTime(ms) !== new Date(ms).toISOString());
  t.same(wrong, [], `${edges.length} times, each the same text as toISOString`);
  t.throws(() => ledgerTime(Number.NaN), RangeError, 'no time: as toISOString');
});

t.test('reads running at once share a turn of the event loop', async (t) => {
  const shares = async (reads: number) => {
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: reads }, async () => {
        for (let turn = 0; turn < 5; turn++) {
          await nextSlice();
          seen.push(sliceShare());
        }
      }),
    );
    return [...new Set(seen.slice(reads))]; // from the second turn on, every read has asked
  };
  t.same(await shares(1), [TURN_MS], 'one read: the whole turn');
  t.same(await shares(4), [TURN_MS / 4], 'four reads: a quarter each');
  t.same(await shares(2), [TURN_MS / 2], 'then two: a half each');
});
