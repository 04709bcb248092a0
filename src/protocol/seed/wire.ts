/*
 * The spec's names on the wire that the layers above need: headers, and the fields they read of a
 * callback or a reply. Everything else about this protocol stays in this folder.
 */

/** The spec's headers, lower case as Node hands them over (and as a reply's are read). */
export const HEADER = {
  apiId: 'api-id',
  apiKey: 'api-key',
  callbackUrl: 'callback-url',
  /** wallet-sim's own: why a callback was not answered R0. */
  reason: 'x-wallet-sim-reason',
} as const;

/** The spec's headers as it writes them (messages, CORS, the OpenAPI document). */
export const HEADER_NAME = {
  apiId: 'Api-Id',
  apiKey: 'Api-Key',
  callbackUrl: 'Callback-URL',
  reason: 'X-Wallet-Sim-Reason',
} as const;

/** Fields of a callback's data and of a reply that the layers above read. */
export const FIELD = {
  latestBalance: 'latest_balance',
  totalBetAmount: 'total_bet_amount',
  totalWinloss: 'total_winloss',
} as const;

/** The built-in events' names. */
export const EVENT = {
  login: 'login',
  bet: 'bet',
  betResult: 'bet_result',
} as const;
