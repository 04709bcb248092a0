import { junitXml } from '../report/junit.js';
import type { VerifyOutcome } from './verify.js';

export function formatVerifyReport(url: string, o: VerifyOutcome): string {
  const out = [`wallet-sim verify → ${url} (${o.entries} callbacks in the journal)`, ''];
  for (const r of o.results) {
    out.push(`${r.passed ? '✓' : '✗'} ${r.name}: ${r.message}`);
    for (const d of r.details) out.push(`    ${d}`);
  }
  const failed = o.results.filter((r) => !r.passed).length;
  out.push('', `${o.results.length} expectations: ${o.results.length - failed} held, ${failed} failed`);
  return out.join('\n');
}

export function verifyJUnit(url: string, o: VerifyOutcome, startedAt: string, seconds: number): string {
  return junitXml([
    {
      name: 'wallet-sim verify',
      timestamp: startedAt,
      time: seconds,
      properties: { url, callbacks: String(o.entries) },
      cases: o.results.map((r) => ({
        name: r.name,
        classname: `wallet-sim.verify.${r.group}`,
        status: r.passed ? 'pass' : 'fail',
        message: r.passed ? undefined : r.message,
        details: r.passed ? undefined : [r.message, ...r.details].join('\n'),
      })),
    },
  ]);
}
