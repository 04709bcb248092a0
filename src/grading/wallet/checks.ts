import { KEY_LEAK } from '../../protocol/seed/reply-read.js';
import type { NoReplyCause, WalletCheckId } from './exchange.js';

/** One row of the wallet side's table: what the operator's wallet must do, and how to fix it. */
export interface WalletCheck {
  id: WalletCheckId;
  severity: 'error' | 'warning';
  /** What the operator's wallet must do. */
  title: string;
  /** What to change in the wallet when it fails. */
  fix: string;
  /** What would exercise it (shown while it is not exercised). */
  idle: string;
  /** One chance, singular and plural. */
  unit: readonly [one: string, many: string];
  /** The fix when the violations say what kind of failure they were (a wallet not reached is not a slow one). */
  fixFor?: Readonly<Record<NoReplyCause, string>>;
  /** A problem some violations name (as the reader words it), and what to change for it: said after the check's fix. */
  problemFixes?: readonly { problem: string; fix: string }[];
}

/** How a violation names a refused settlement (WALLET_ROUND_RULES' fix for it keys on these words). */
export const SETTLEMENT_REFUSED = 'a settlement of a round it acknowledged was refused';

const SLOW_FIX =
  "Answer within the provider's time-out: a later reply is a lost reply to the provider, which then resends or gives up. Find what is slow (a lock held across I/O, a slow store) or raise the agreed time-out.";

/** The wallet-side checks, in report order (docs/proxy.md; ids are stable). */
export const WALLET_CHECKS: readonly WalletCheck[] = [
  {
    id: 'WALLET_REPLY_VALID',
    severity: 'error',
    title:
      'Answer every callback per the spec: HTTP 200, a JSON reply with code R0-R4, event_type and user_id echoed, latest_balance on R0, Api-Id/Api-Key headers',
    fix: 'Reply with HTTP 200, Content-Type application/json, Api-Id and Api-Key headers (and Callback-URL on login and bet_result), and a body with code (R0-R4, upper case), event_type and user_id as sent, a timestamp (Unix seconds), and latest_balance (a JSON number) on every R0.',
    idle: 'no callback reached the wallet',
    unit: ['reply', 'replies'],
    problemFixes: [
      {
        problem: 'no callback route there',
        fix: "A 404 or 405 is no wallet's reply: point the callback URL at the wallet's callback route, path included (proxy mode: --upstream; probe: --url).",
      },
      {
        problem: KEY_LEAK,
        fix: 'On a reply to a caller whose credentials were wrong (R2), echo back the Api-Id and Api-Key it sent: never send your configured Api-Key to a caller that did not present it.',
      },
    ],
  },
  {
    id: 'WALLET_IDEMPOTENT',
    severity: 'error',
    title: 'Apply a transaction once: a resend of a transaction already answered R0 replays R0 and moves nothing',
    fix: "Key every bet and bet_result on its transaction_id: when the same id arrives again with the same body, answer R0 again with the balance (the first reply's or the current one) and change nothing.",
    idle: 'no transaction answered R0 was sent again (a lost reply, then its resend, exercises it)',
    unit: ['resend of an applied transaction', 'resends of applied transactions'],
  },
  {
    id: 'WALLET_BALANCE_EXACT',
    severity: 'error',
    title:
      "Move the balance by exactly the callback's amount: a bet by -total_bet_amount, a bet_result by total_bet_amount + total_winloss, a login by 0",
    fix: 'Compute balances in exact decimals (never binary floats): debit total_bet_amount on a bet, credit total_bet_amount + total_winloss on a bet_result (a full loss credits 0), and report the balance after the change in latest_balance.',
    idle: "no new transaction was answered R0 while the player's previous balance was known (log the player in first)",
    unit: ['applied transaction with a known balance before it', 'applied transactions with a known balance before them'],
    problemFixes: [
      {
        problem: 'a login moves nothing',
        fix: 'A login changes no balance: answer it with the balance as it stands (never reset, reload or recompute it on login).',
      },
      {
        problem: 'so a resend moves nothing',
        fix: 'An attempt you applied without its reply being read is applied: its resend (same transaction_id) replays R0 and moves nothing. Key every bet and bet_result on its transaction_id, committed with the change.',
      },
    ],
  },
  {
    id: 'WALLET_REFUSES_SHORT_BET',
    severity: 'error',
    title: 'Refuse (R4) a bet the balance cannot cover',
    fix: "Before debiting, compare total_bet_amount with the balance under the player's lock; when it is short, answer R4 with latest_balance and debit nothing.",
    idle: 'no bet above the balance the wallet last reported was sent',
    unit: ['bet above the reported balance', 'bets above the reported balance'],
  },
  {
    id: 'WALLET_ANSWERS_IN_TIME',
    severity: 'error',
    title: "Answer every callback within the provider's time-out (client_timeout_s)",
    fix: SLOW_FIX,
    idle: 'no callback reached the wallet',
    unit: ['callback', 'callbacks'],
    fixFor: {
      timeout: SLOW_FIX,
      unreachable:
        "wallet-sim could not reach the wallet (nothing says it is slow): is the wallet up? Check the wallet's URL (proxy mode's --upstream, " +
        "probe's --url): its host, its port and its scheme (http or https? a plain-HTTP port needs http://), and that this machine may " +
        'connect to it (in proxy mode GET /health shows upstream.reachable). Then play those callbacks again.',
      broken:
        'The wallet (or something in front of it) closed the connection without an HTTP reply, or answered bytes that are not HTTP: look ' +
        "in the wallet's logs for a crash on those callbacks, and check the scheme of the wallet's URL (http or https?).",
    },
  },
  {
    id: 'WALLET_REFUSES_INVALID',
    severity: 'warning',
    title:
      'Refuse what the wallet rules refuse for the body or the credentials: an invalid callback (schema, totals, digits) or one with other credentials is never answered R0',
    fix: 'Validate every callback before applying it (required fields and their types, totals that are the sums of their lines, amounts > 0 with no more digits than the currency has, a winloss never below -bet_amount, a result_detail that is a JSON object) and check Api-Id and Api-Key: answer R3 (invalid) or R2 (credentials) and change nothing.',
    idle: 'no invalid or wrongly credentialed callback reached the wallet',
    unit: ['invalid or wrongly credentialed callback', 'invalid or wrongly credentialed callbacks'],
  },
  {
    id: 'WALLET_ROUND_RULES',
    severity: 'error',
    title:
      "Keep a round's rules: no R0 to a settlement of a round never bet or already settled, a bet on a settled round, a transaction_id reused with another body, or a bet in another currency than the player's",
    fix: "Keep each round (user_id, game_no) with its bets and its state: refuse (R3) a bet_result for a round without bets or already settled (whatever its transaction_id), a bet on a settled round, a settlement whose stake or bet_index differs from the bets, a transaction_id already applied to another body, and a currency other than the player's.",
    idle: 'no callback that the wallet rules refuse for its round, its currency or a reused transaction_id reached the wallet',
    unit: ['callback refused by a round rule', 'callbacks refused by a round rule'],
    problemFixes: [
      {
        problem: SETTLEMENT_REFUSED,
        fix: 'A bet_result of a round whose bets you answered R0, with the same stake and bet_index values, is applied (R0: stake + winloss credited), never refused: look up the round by (user_id, game_no) as the bet wrote it, and commit the bet before its reply goes out.',
      },
    ],
  },
  {
    id: 'WALLET_CONCURRENCY_SAFE',
    severity: 'error',
    title:
      "Apply one player's simultaneous callbacks as if one after another: some serial order of them explains every balance reported, and none is negative",
    fix: "Serialize each player's callbacks around the balance: take a per-player lock (or a row lock, or a compare-and-set retried on conflict) across read, check and debit, so that two bets never both pass the balance check on the same balance (a lost update, an overdraft).",
    idle: 'no callbacks of one player overlapped (sent before the previous reply came back)',
    unit: ['history of overlapping callbacks', 'histories of overlapping callbacks'],
  },
];
