// A file-store wallet restarted under a running client: the players it already held may have logged
// in before the restart, so LOGIN_BEFORE_BET does not judge them (it was a false alarm for every
// player of a correct provider); a player new to the wallet is judged as always.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSimulator } from '../../src/app/start-simulator.js';
import { bet, HEADERS, login } from '../helpers/app.js';

t.test('after a restart, a held player betting first is not a LOGIN_BEFORE_BET violation; a new one is', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-restart-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const data = join(dir, 'wallet.json');
  const post = (url: string, body: object) =>
    fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ code: string }>);

  const first = await startSimulator({ store: 'file', data });
  t.equal((await post(first.callbackUrl, login('held'))).code, 'R0');
  t.equal((await post(first.callbackUrl, bet('held', 'g1', [['1', 'P', 10]], { currency: 'USD' }))).code, 'R0');
  await first.close();

  const second = await startSimulator({ store: 'file', data });
  t.teardown(() => second.close());
  t.equal((await post(second.callbackUrl, bet('held', 'g2', [['1', 'P', 10]], { currency: 'USD' }))).code, 'R0');
  t.equal((await post(second.callbackUrl, bet('newcomer', 'g3', [['1', 'P', 10]], { currency: 'USD' }))).code, 'R0');
  const check = (await second.report()).checks.find((c) => c.id === 'LOGIN_BEFORE_BET')!;
  t.equal(check.exercised, 1, 'only the newcomer is judged');
  t.equal(check.violations.length, 1);
  t.match(check.violations[0]!.message, /first bet of newcomer/);
  t.notMatch(JSON.stringify(check.violations), /\bheld\b/, 'the held player is not blamed');
});
