// Memory per applied transaction and RSS under --retain-transactions (docs/design.md "Bounded memory").
// Drives the wallet directly (no HTTP: the journal is bounded separately), one bet and one
// bet_result per round, and prints RSS and heap after each checkpoint.
//   node --expose-gc dist/scripts/measure-memory.js [total=5000000] [retain=1000000]
import type { CallbackRequest } from '../src/protocol/types.generated.js';
import { decide } from '../src/wallet/decide.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import {} from '../src/core/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { openSimulator } from '../src/app/compose.js';

const total = Number(process.argv[2] ?? 5_000_000);
const retain = Number(process.argv[3] ?? 1_000_000);
const checkpoints = new Set([100_000, 1_000_000, 2_000_000, 3_000_000, 4_000_000, 5_000_000, total]);

const scenario = compileScenario({
  name: 'memory',
  credentials: { api_id: 'a', api_key: 'b' },
  currencies: { KRW: 0 },
  defaults: { currency: 'KRW', balance: 1e12 },
});
const sim = await openSimulator(scenario, new MemoryBackend({ retainTransactions: retain }));
const ts = Math.floor(Date.now() / 1000);
const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
const gc = (globalThis as { gc?: () => void }).gc;

const base = process.memoryUsage();
console.log(`retain ${retain}; start: rss ${mib(base.rss)} MiB, heap ${mib(base.heapUsed)} MiB`);
let applied = 0;
for (let round = 0; applied < total; round++) {
  const user_id = `p${round % 1000}`;
  const game_no = `g${round}`;
  const common = { timestamp: ts, feedback_data: 'fb', user_id };
  const data = { currency: 'KRW', game_type: 'BAC', table_no: 'T1', game_no, total_bet_amount: 100 };
  const bet = {
    ...common,
    transaction_id: `b${round}`,
    event_type: 'bet' as const,
    data: { ...data, bets: [{ bet_index: '1', bet_type: 'P', bet_amount: 100 }] },
  };
  const result = {
    ...common,
    transaction_id: `r${round}`,
    event_type: 'bet_result' as const,
    data: {
      ...data,
      total_winloss: 100,
      result: 'P',
      result_detail: '{"pscore":8,"bscore":3,"pcards":["H8"],"bcards":["D2"]}',
      bet_results: [{ bet_index: '1', bet_type: 'P', bet_amount: 100, winloss: 100 }],
    },
  };
  for (const req of [bet, result] as CallbackRequest[]) {
    const keys = {
      user_id: req.user_id,
      transaction_id: req.transaction_id,
      game_no: req.event_type === 'login' ? undefined : req.data.game_no,
    };
    const decision = await sim.store.transact(keys, (view) => decide(view, req, sim.config));
    if (decision.code !== 'R0') throw new Error(`${req.transaction_id}: ${decision.code}`);
    applied++;
    if (checkpoints.has(applied)) {
      gc?.();
      const m = process.memoryUsage();
      const state = sim.state;
      console.log(
        `${applied} transactions: rss ${mib(m.rss)} MiB, heap ${mib(m.heapUsed)} MiB, ` +
          `(heap - start) / retained = ${((m.heapUsed - base.heapUsed) / Math.min(applied, retain)).toFixed(0)} B; ` +
          `retained ${state.transactions.size}, rounds ${state.rounds.size}, forgotten ${state.index.forgotten.size}`,
      );
    }
  }
}
