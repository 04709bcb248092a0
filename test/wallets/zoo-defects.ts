/**
 * The zoo's defects: one realistic operator-wallet bug each, named as `--defect <name>` takes it.
 * The correct wallet (no defect) follows the protocol and the wallet rules of docs/design.md;
 * each defect below breaks exactly one of them, the way real first implementations do.
 *
 * | name                        | what the wallet gets wrong                                                              |
 * |-----------------------------|-----------------------------------------------------------------------------------------|
 * | double-debit-resend         | a resend of an applied transaction (same id, same body) is applied again               |
 * | replay-stale-balance        | a resend is answered R0 with the balance from before the first application             |
 * | r3-on-resend                | a resend of an applied transaction is answered R3 (a provider then thinks it refused)  |
 * | float-money                 | balances are kept in binary floats: 102.1 - 0.7 = 101.39999999999999                    |
 * | settle-winloss-only         | a settlement credits total_winloss only (forgets the stake comes back)                  |
 * | r0-short-bet                | a bet above the balance is answered R0 (the balance goes negative)                     |
 * | r0-short-clamp              | a bet above the balance is answered R0 and the balance set to 0 (never negative)       |
 * | no-player-lock              | no per-player lock: read balance, await the "database", debit: concurrent bets overdraw |
 * | settle-unknown-round        | a settlement of a round never bet is accepted and credited                              |
 * | resettle-new-txid           | a settled round settles again under a new transaction_id                                |
 * | any-currency                | a bet in a currency other than the player's is accepted                                |
 * | unknown-player-r0           | an unknown player gets R0 and balance 0 on every event, and its bets are accepted      |
 * | missing-headers             | replies lack Api-Id, Api-Key and Callback-URL                                           |
 * | leaks-api-key               | a caller with wrong credentials gets R2 with the wallet's own Api-Id/Api-Key headers    |
 * | wrong-content-type          | replies say Content-Type: text/plain                                                    |
 * | lowercase-code              | codes are written "r0", "r3", …                                                         |
 * | no-balance-on-r0            | R0 replies to bet and bet_result lack latest_balance                                    |
 * | no-echo                     | replies lack user_id and event_type                                                     |
 * | balance-as-string           | latest_balance is written as a JSON string ("990.00")                                   |
 * | slow                        | bet_result replies come after --slow-ms (default 5000) ms                               |
 * | garbage-bytes               | bet_result is applied, then answered with bytes that are not HTTP and a closed socket   |
 * | non-json                    | bet_result is applied, then answered HTTP 200 with the text "OK"                        |
 * | http-500                    | bet_result is applied, then answered HTTP 500 (the handler throws after it commits)    |
 * | accepts-wrong-types         | amounts sent as JSON strings ("1.5") are read as numbers                                |
 * | accepts-missing-timestamp   | a callback without timestamp is accepted                                                |
 * | accepts-nonpositive-amount  | a zero or negative bet_amount is accepted                                               |
 * | accepts-excess-digits       | amounts with more fraction digits than the currency has are accepted                   |
 * | accepts-bad-totals          | total_bet_amount / total_winloss that are not the sums of their lines are accepted     |
 * | accepts-bet-on-settled-round| a bet on a round already settled is accepted                                            |
 * | accepts-winloss-below-stake | a winloss below −bet_amount (a loss larger than the stake) is accepted                 |
 * | accepts-unknown-bet-index   | a settlement line for a bet_index never bet is accepted                                |
 * | accepts-stake-mismatch      | a settlement whose total_bet_amount differs from the round's stake is accepted         |
 * | accepts-bad-result-detail   | a result_detail that is not a JSON object is accepted                                   |
 * | accepts-wrong-api-id        | only Api-Key is checked: a wrong Api-Id is accepted                                    |
 * | open-bet-result             | bet_result does not check credentials at all                                            |
 *
 * Correct variants (never a defect): `--delay-ms N` (every reply N ms late: slow but in time),
 * `--extra-headers` (more reply headers, `Content-Type: application/json; charset=utf-8`),
 * `--replay original|current` (a resend is answered with the first reply's balance or the current
 * one; both are correct), `--auto-create <balance>` (an unknown player is created with that balance
 * instead of refused with R3).
 */
export const DEFECTS = [
  'double-debit-resend',
  'replay-stale-balance',
  'r3-on-resend',
  'float-money',
  'settle-winloss-only',
  'r0-short-bet',
  'r0-short-clamp',
  'no-player-lock',
  'settle-unknown-round',
  'resettle-new-txid',
  'any-currency',
  'unknown-player-r0',
  'missing-headers',
  'leaks-api-key',
  'wrong-content-type',
  'lowercase-code',
  'no-balance-on-r0',
  'no-echo',
  'balance-as-string',
  'slow',
  'garbage-bytes',
  'non-json',
  'http-500',
  'accepts-wrong-types',
  'accepts-missing-timestamp',
  'accepts-nonpositive-amount',
  'accepts-excess-digits',
  'accepts-bad-totals',
  'accepts-bet-on-settled-round',
  'accepts-winloss-below-stake',
  'accepts-unknown-bet-index',
  'accepts-stake-mismatch',
  'accepts-bad-result-detail',
  'accepts-wrong-api-id',
  'open-bet-result',
] as const;

export type Defect = (typeof DEFECTS)[number];

export const isDefect = (s: string): s is Defect => (DEFECTS as readonly string[]).includes(s);
