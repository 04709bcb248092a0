// Heap held by grading for callbacks with large bodies (docs/limits.md, grading's copy of a body):
// N bets with 4,000 characters of feedback_data each, through the callback route (app.inject, a
// memory store, default journal bounds), each its own transaction and round; heap after a GC at
// each checkpoint.
//   node --expose-gc dist/scripts/measure-graded-bodies.js [total=200000] [feedback=4000]
import { buildApp } from '../src/app/app.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import {} from '../src/core/simulator.js';
import { openSimulator } from '../src/app/compose.js';

const total = Number(process.argv[2] ?? 200_000);
const feedback = 'f'.repeat(Number(process.argv[3] ?? 4000));
const scenario = compileScenario({
  name: 'graded-bodies',
  credentials: { api_id: 'a', api_key: 'b' },
  currencies: { KRW: 0 },
  defaults: { currency: 'KRW', balance: 1e12, auto_create_players: true },
});
const sim = await openSimulator(scenario, new MemoryBackend({}));
const app = await buildApp({ sim, logger: false });
const gc = (globalThis as { gc?: () => void }).gc;
const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
const headers = { 'content-type': 'application/json', 'api-id': 'a', 'api-key': 'b', 'callback-url': 'x' };
const ts = Math.floor(Date.now() / 1000);
gc?.();
console.log(`start: heap ${mib(process.memoryUsage().heapUsed)} MiB, rss ${mib(process.memoryUsage().rss)} MiB`);
for (let i = 1; i <= total; i++) {
  const payload = JSON.stringify({
    transaction_id: `b${i}`,
    event_type: 'bet',
    timestamp: ts,
    feedback_data: feedback,
    user_id: `p${i % 1000}`,
    data: {
      currency: 'KRW',
      game_type: 'BAC',
      table_no: 'T1',
      game_no: `g${i}`,
      total_bet_amount: 1,
      bets: [{ bet_index: '1', bet_type: 'P', bet_amount: 1 }],
    },
  });
  const reply = await app.inject({ method: 'POST', url: '/callback', headers, payload });
  if (!reply.body.includes('"R0"')) throw new Error(`bet ${i}: ${reply.body}`);
  if (i % 50_000 === 0 || i === total) {
    gc?.();
    const m = process.memoryUsage();
    console.log(`${i} bets: heap ${mib(m.heapUsed)} MiB, rss ${mib(m.rss)} MiB`);
  }
}
await app.close();
