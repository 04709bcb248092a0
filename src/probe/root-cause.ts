import type { WalletCheckReport } from '../grading/wallet/wallet-grader.js';
import type { CheckResult, ProbeWalletCheck } from './types.js';

/**
 * One root cause, one failure: a probe check that owns its exchanges (a player no other check
 * plays, as unknown-player's stranger) and fails names that root cause. The wallet checks'
 * violations on those exchanges alone are then not counted again: the wallet check says "see" that
 * check instead, and fails only for what else it found. Likewise WALLET_REFUSES_INVALID's warning
 * on the very exchange a refusal check failed on (an R0 to a body it had to refuse): it says "see".
 */
export function leaveToOwners(wallet: WalletCheckReport[], checks: CheckResult[]): ProbeWalletCheck[] {
  const owner = new Map<number, string>();
  const refused = new Map<number, string>();
  for (const c of checks) {
    if (c.status !== 'fail') continue;
    if (c.ownsExchanges) for (const x of c.exchanges) owner.set(x.id, c.name);
    for (const a of c.assertions) if (!a.passed && a.exchange !== undefined) refused.set(c.exchanges[a.exchange]!.id, c.name);
  }
  if (!owner.size && !refused.size) return wallet;
  return wallet.map((w) => {
    const owners = w.id === 'WALLET_REFUSES_INVALID' ? new Map([...refused, ...owner]) : owner;
    const owned = (ids: number[]) => ids.length > 0 && ids.every((id) => owners.has(id));
    const theirs = w.violations.filter((v) => owned(v.journal_ids));
    if (!theirs.length || w.status !== 'fail') return w;
    const rest = w.violations.filter((v) => !owned(v.journal_ids));
    const see = [...new Set(theirs.flatMap((v) => v.journal_ids.map((id) => owners.get(id)!)))].join(', ');
    const failed = /, (\d+) failed/.exec(w.detail);
    const passed = Math.max(0, w.exercised - Number(failed?.[1] ?? w.violations.length));
    const detail = w.detail.replace(
      /, \d+ failed/,
      `${rest.length ? `, ${rest.length} failed` : ''}, ${theirs.length} not judged here (see ${see})`,
    );
    const status = rest.length ? 'fail' : passed ? 'pass' : 'not_exercised';
    return { ...w, status, detail, violations: rest, see };
  });
}
