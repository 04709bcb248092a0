// Debian's chromium for the browser tests (driven by playwright-core): where it is, how it starts,
// and the loud skip message when it is missing.
import { existsSync } from 'node:fs';
import { skipUnlessRequired } from './required.js';

export const CHROMIUM = process.env.WALLET_SIM_CHROMIUM ?? '/usr/bin/chromium';
/** No sandbox (CI containers), no GPU, and nothing that would reach beyond 127.0.0.1. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests of `what` are skipped (printed loudly), or undefined when chromium is there. */
export function chromiumMissing(what: string): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  // In CI (or with WALLET_SIM_REQUIRE_CHROMIUM=1) this throws: a failure, not a skip.
  skipUnlessRequired('CHROMIUM', `${CHROMIUM} not found: ${what} not run`);
  const message = `${CHROMIUM} NOT FOUND: ${what} SKIPPED. Install it with: apt-get update && apt-get install -y chromium (.ci/run does this; in CI it is required: a failure, not a skip).`;
  console.error(`\n${'!'.repeat(100)}\n!! ${message}\n${'!'.repeat(100)}\n`);
  return message;
}
