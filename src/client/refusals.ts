import { terminalText } from '../text/terminal-text.js';

/**
 * What an admin API's refusal tells its reader (report, reconcile, verify, tail, send): a 401 is a
 * token wanted or refused; a 403 is the token refused only when the server says so (a tenant's
 * FORBIDDEN); any other 403 (a Host the server does not answer, a cross-site request) is the
 * server's own reason, since the token was never looked at.
 */
export const TOKEN_REFUSED = 'the token given (--token-file or --admin-token) was refused';
const TOKEN_WRONG = `${TOKEN_REFUSED}: it is wrong, or it was rotated since (ask whoever runs this wallet-sim for the current one)`;
const LOCKED = "the admin API is locked: pass --admin-token (or WALLET_SIM_ADMIN_TOKEN), or a hosted tenant's --token-file";

/** The `error` code and `message` of a reply in the house error format, where it is one (the message safe for a terminal). */
export function houseError(body: string): { error?: string; message?: string } {
  try {
    const { error, message } = (JSON.parse(body) as { error?: unknown; message?: unknown } | null) ?? {};
    return {
      error: typeof error === 'string' ? error : undefined,
      message: typeof message === 'string' ? terminalText(message) : undefined,
    };
  } catch {
    return {};
  }
}

/** The line for a 401 or 403 answer (`body` its text); undefined for any other status. */
export function refusalOf(status: number, body: string, tokenGiven: boolean): string | undefined {
  if (status === 401) return `401, ${tokenGiven ? TOKEN_WRONG : LOCKED}`;
  if (status !== 403) return undefined;
  const { error, message } = houseError(body);
  if (tokenGiven && error === 'FORBIDDEN') return `403, ${TOKEN_REFUSED}: ${message ?? 'it may not read this'}`;
  return `HTTP 403: ${message ?? 'refused'}`;
}
