// Property: the verdict of a generated session does not depend on the journal's retention (the
// report is a fold of the callbacks as they happened, not a read of what the journal still holds).
import fc from 'fast-check';
import t from 'tap';
import type { Report } from '../../src/protocol/types.generated.js';
import { buildTestApp, HEADERS, listen } from '../helpers/app.js';
import { post } from '../helpers/net.js';
import { bodies, RULES, steps, verdict } from './session-property.js';

async function play(journalSize: number, sent: object[]): Promise<Report> {
  const { app } = await buildTestApp({ rules: RULES }, { journalSize });
  try {
    const url = `${await listen(app)}/callback`; // a dropped reply needs a real socket
    for (const body of sent) await post(url, body, HEADERS, 5000);
    return (await app.inject({ method: 'GET', url: '/admin/report' })).json();
  } finally {
    await app.close();
  }
}

// `npm test` runs a short property run (3 sessions); `npm run test:full` the long one (20).
const RUNS = Number(process.env.WALLET_SIM_PROPERTY_RUNS ?? 3);

let run = 0;
t.test('the same verdict with 2 or 10,000 journal entries retained', async (t) => {
  await fc.assert(
    fc.asyncProperty(steps, async (s) => {
      const sent = bodies(s, `r${++run}`);
      const [small, large] = [await play(2, sent), await play(10_000, sent)];
      return verdict(small) === verdict(large);
    }),
    { numRuns: RUNS, seed: 20261125 },
  );
  t.equal(run, RUNS, `${RUNS} generated sessions, each the same verdict`);
});
