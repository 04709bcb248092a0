// The event loop's lag, which widens the timing checks' tolerance (src/core/loop-lag.ts): read
// once per batch of events, and a block of the loop is seen by the callbacks handled after it.
import { setImmediate as turn } from 'node:timers/promises';
import t from 'tap';
import { LoopLag } from '../../src/core/loop-lag.js';

t.test('a block of the loop right after the lag window rolls over is seen by the next batches', async (t) => {
  const lag = new LoopLag();
  // Until the monitor has its baseline (its first period after enabling is not a sample).
  for (let i = 0; i < 200 && lag.samples < 2; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  await turn();
  const now = Date.now();
  const before = lag.at(now);
  t.equal(lag.at(now), before, 'the same batch reads the same lag');
  // Block the loop 150 ms, then let its sampling timer run: wait for the state, bounded.
  const end = Date.now() + 150;
  while (Date.now() < end);
  let seen = 0;
  for (let i = 0; i < 200 && seen < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    seen = lag.at(Date.now());
  }
  t.ok(seen >= 100, `the block is seen (${seen} ms)`);
});

t.test('a block long before, with no callback since, is forgotten: the monitors are cleared by the clock, not by reads', async (t) => {
  const lag = new LoopLag(100);
  for (let i = 0; i < 200 && lag.samples < 2; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  const end = Date.now() + 150;
  while (Date.now() < end);
  // No read meanwhile: wait for the state (both monitors cleared since the block), bounded.
  const after = lag.rotations;
  for (let i = 0; i < 400 && lag.rotations < after + 3; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.ok(lag.rotations >= after + 3, 'cleared three times since');
  await turn();
  const seen = lag.at(Date.now());
  t.ok(seen < 100, `the old block is not this batch's lag (${seen} ms)`);
});

t.test('a callback handled later in a batch is as late again as the batch had run before it', async (t) => {
  // A burst of players: the loop handles their callbacks one after another in one batch, and the
  // monitors see that batch only once it ends. The 40th callback's stamp, 300 ms into it, is late by that much.
  const lag = new LoopLag();
  await turn();
  const start = Date.now();
  const first = lag.at(start);
  t.equal(lag.at(start + 300), first + 300, '300 ms into the batch: 300 ms later');
  t.equal(lag.at(start - 5), first, 'never less than the batch start');
  await turn();
  const again = lag.at(start + 300);
  t.equal(lag.at(start + 350), again + 50, 'the next batch counts from its own start');
});
