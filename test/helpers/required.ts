// Where a test decides that a missing tool is a skip or a failure: locally a visible skip (with how
import type { Test } from 'tap';
// to install it), in CI a failure, so a green CI run always had Redis and a browser.

/** In CI (`CI` set, as every CI service sets it, and not "false"/"0") or when `WALLET_SIM_REQUIRE_<TOOL>=1`. */
export function required(tool: 'REDIS' | 'CHROMIUM'): boolean {
  const ci = process.env.CI;
  return (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') || process.env[`WALLET_SIM_REQUIRE_${tool}`] === '1';
}

/**
 * `missing` (why the tool cannot run here) as a skip reason, or undefined when it is there. Throws
 * when the tool is required: the test file fails, naming what to install.
 */
export function skipUnlessRequired(tool: 'REDIS' | 'CHROMIUM', missing: string | undefined): string | undefined {
  if (missing === undefined) return undefined;
  if (required(tool)) throw new Error(`${missing} — required here (CI or WALLET_SIM_REQUIRE_${tool}=1): this is a failure, not a skip`);
  return missing;
}

/** A visible skip: a test named `what`, skipped with `reason` (tap counts and prints it; a t.pass would hide it). */
export function skip(t: Test, what: string, reason: string): void {
  void t.test(what, { skip: reason }, () => {});
}
