import { canonicalJson } from '../evidence/canonical-json.js';
import { signStatement, VERSION } from '../evidence/sign-report.js';
import type { Signer } from '../evidence/signing-key.js';
import { REPORT_SUBJECT, sha256, STATEMENT_TYPE, type Tenant, TEST_RESULT_PREDICATE, testResults } from '../evidence/statement.js';
import type { SignedReport } from '../protocol/types.generated.js';
import type { CheckResult, ProbeReport } from '../probe/types.js';
import { countedStatus } from './probe-run.js';

/**
 * A hosted probe run's report, signed as a session report is (the same envelope, statement and
 * predicate, so `wallet-sim verify-report` reads it): the subject is the report's JSON text as
 * served (Api-Key masked), annotated with the run and the tenant; the tests are the probe's checks
 * (a skipped one in no list, a warned one a failing warning: the statement's warned tests) and the
 * wallet checks; the configuration names the target probed.
 */
export function signProbeReport(
  signer: Signer,
  reportText: string,
  report: ProbeReport,
  run: { id: string; ended_at?: string },
  tenant: Tenant,
): SignedReport {
  const checks = [...report.checks.filter((c) => c.status !== 'skip').map(asTest), ...report.walletChecks];
  const { result, passedTests, warnedTests, failedTests, pendingChecks } = testResults(checks as Parameters<typeof testResults>[0]);
  const { url, user, currency, scale } = report.target;
  return signStatement(signer, reportText, {
    _type: STATEMENT_TYPE,
    subject: [
      {
        name: REPORT_SUBJECT,
        digest: { sha256: sha256(reportText) },
        mediaType: 'application/json',
        annotations: {
          session_id: `probe run ${run.id}`,
          seed: 'none (probe)',
          started_at: report.startedAt,
          ended_at: run.ended_at,
          user_id: user,
          probe_target: url,
          ...(report.stopped ? { stopped: report.stopped.message } : {}),
          tenant_id: tenant.id,
          tenant_name: tenant.name,
          pending_checks: pendingChecks,
        },
      },
    ],
    predicateType: TEST_RESULT_PREDICATE,
    predicate: {
      result,
      configuration: [
        { name: `probe ${url}`, digest: { sha256: sha256(canonicalJson({ url, user, currency, scale })) }, mediaType: 'application/json' },
        { name: 'wallet-sim', uri: `pkg:npm/wallet-sim@${VERSION}`, annotations: { version: VERSION } },
      ],
      passedTests,
      warnedTests,
      failedTests,
    },
  });
}

/** A probe check as a test of the statement: a warned one is a failing warning check, as a session report's (same format). */
function asTest(c: CheckResult) {
  const status = countedStatus(c);
  return status === 'warn'
    ? { id: c.name, severity: 'warning' as const, status: 'fail' as const }
    : { id: c.name, severity: 'error' as const, status: status as 'pass' | 'fail' };
}
