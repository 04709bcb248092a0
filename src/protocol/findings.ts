/**
 * Findings: what the caller did wrong in one callback. Every check reports into one list so a
 * provider sees all the defects of a request, not only the first. `error` findings make the reply
 * R3 (or R2 for credentials); `warning` and `info` are only recorded.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  code: FindingCode;
  severity: Severity;
  message: string;
  /** JSON pointer into the request body, or "header:<name>". */
  pointer?: string;
}

/** Every finding code, its severity, and what it means. docs/routes.md lists it (test/readme.test.ts checks). */
export const FINDINGS = {
  CREDENTIALS_MISSING: ['error', 'Api-Id or Api-Key header is missing'],
  CREDENTIALS_WRONG: ['error', 'Api-Id / Api-Key do not match the scenario credentials'],
  CALLBACK_URL_MISSING: ['warning', 'Callback-URL header is missing'],
  CONTENT_TYPE_WRONG: ['error', 'Content-Type is not application/json'],
  BODY_EMPTY: ['error', 'the body is empty'],
  BODY_NOT_JSON: ['error', 'the body is not valid JSON'],
  BODY_FORBIDDEN_KEY: ['error', 'the body has a __proto__ or constructor.prototype key'],
  SCHEMA: ['error', 'the body does not match the request schema'],
  KEY_REPEATED: ['error', 'the body names a key twice in one object (parsers differ on which value counts)'],
  TIMESTAMP_NOT_INTEGER: ['warning', 'timestamp is not an integer number of seconds'],
  DATA_ON_LOGIN: ['warning', 'a login carries data, which only bet and bet_result have'],
  TIMESTAMP_SKEWED: ['warning', 'timestamp is far from the wallet clock'],
  AMOUNT_SCALE: ['error', 'an amount has more fraction digits than its currency allows'],
  AMOUNT_NOT_FINITE: ['error', 'an amount is not a finite number'],
  AMOUNT_TOO_LARGE: ['error', 'an amount, or the balance it would make, is not below 10^15 minor units of its currency'],
  BETS_TOO_MANY: ['error', 'more bets than a request or a round may hold'],
  TRANSACTION_EXPIRED: [
    'error',
    'transaction_id may belong to a transaction old enough to be forgotten (--retain-transactions): refused, never applied twice',
  ],
  ROUND_EXPIRED: ['error', 'game_no may belong to a settled round old enough to be forgotten (--retain-transactions)'],
  AMOUNT_INEXACT: ['error', 'an amount has more than 15 significant digits, more than a JSON number holds exactly'],
  TOTAL_MISMATCH: ['error', 'a total does not equal the sum of its parts'],
  BET_INDEX_REPEATED: ['error', 'a bet_index appears twice in the round'],
  CURRENCY_MISMATCH: ['error', "the currency differs from the player's or the round's"],
  PLAYER_UNKNOWN: ['error', 'unknown player and auto_create_players is false'],
  PLAYER_LIMIT: ['error', 'unknown player and the hosted workspace holds as many players as it may (--tenant-players)'],
  ROUND_SETTLED: ['error', 'the round is already settled'],
  ROUND_UNKNOWN: ['error', 'no open round with this game_no for this player'],
  STAKE_MISMATCH: ['error', "total_bet_amount differs from the round's stake"],
  BET_INDEX_UNKNOWN: ['error', 'a bet_index of bet_results was never bet'],
  BET_MISMATCH: ['error', 'a bet result differs from the bet that was placed'],
  WINLOSS_BELOW_STAKE: ['error', 'a winloss loses more than its bet_amount'],
  RESULT_DETAIL_NOT_JSON: ['error', 'result_detail does not parse to a JSON object'],
  RESULT_DETAIL_INCOMPLETE: ['warning', 'result_detail lacks a baccarat key or has a wrong type'],
  CARD_MALFORMED: ['warning', 'a card is not a suit letter (S, H, D, C) followed by a rank 1-13'],
  TRANSACTION_REUSED: ['error', 'transaction_id was already applied with a different body'],
  TRANSACTION_REPLAYED: ['info', 'transaction_id was already applied with this body: replayed'],
} as const satisfies Record<string, readonly [Severity, string]>;

export type FindingCode = keyof typeof FINDINGS;

export function finding(code: FindingCode, message?: string, pointer?: string): Finding {
  const [severity, meaning] = FINDINGS[code];
  const f: Finding = { code, severity, message: message ?? meaning };
  if (pointer !== undefined) f.pointer = pointer;
  return f;
}

export const hasErrors = (findings: readonly Finding[]): boolean => findings.some((f) => f.severity === 'error');
