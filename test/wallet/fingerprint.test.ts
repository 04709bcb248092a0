// The idempotency fingerprint is persisted (the file store keeps it per transaction): the same
// request must give the same fingerprint in every version and after every restart, or a replay after
// an upgrade would be refused as a reused transaction_id. These values were made by the first
// 16-character version (sha256 of the canonical JSON, first 12 bytes, base64url).
import t from 'tap';
import type { CallbackRequest } from '../../src/protocol/types.generated.js';
import { fingerprintOf } from '../../src/wallet/decide.js';

const cases: [string, object, string][] = [
  [
    'a login',
    { transaction_id: 't1', event_type: 'login', timestamp: 1700000000, feedback_data: 'fb', user_id: 'alice' },
    'eJgWeozdtPeVsCov',
  ],
  [
    'a bet, non-ASCII user',
    {
      transaction_id: 't2',
      event_type: 'bet',
      timestamp: 1,
      feedback_data: 'fb',
      user_id: 'joueur-é-🎲',
      data: {
        currency: 'USD',
        game_type: 'BAC',
        table_no: 'T1',
        game_no: 'g1',
        total_bet_amount: 2.5,
        bets: [
          { bet_index: '1', bet_type: 'P', bet_amount: 1.5 },
          { bet_index: '2', bet_type: 'T', bet_amount: 1 },
        ],
      },
    },
    'l8OJYWhZIAMmSPO3',
  ],
  [
    'keys out of order, a lone surrogate, -0',
    { user_id: 'u\ud800', data: { z: 1, a: [3, { y: null, b: -0 }] }, event_type: 'bet_result', transaction_id: 'x', timestamp: 5 },
    'gkUSLlQi9EK-6lqe',
  ],
];

t.test('fingerprints are stable across versions and restarts', async (t) => {
  for (const [name, req, expected] of cases) {
    t.equal(fingerprintOf(req as CallbackRequest), expected, name);
    t.equal(fingerprintOf({ ...req, timestamp: 42 } as CallbackRequest), expected, `${name}: the timestamp is not part of it`);
  }
});
