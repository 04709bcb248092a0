import { createHash } from 'node:crypto';
import type { Report, ReportStatement, TestResultPredicate } from '../protocol/types.generated.js';
import { canonicalJson } from './canonical-json.js';

/*
 * The in-toto Statement v1 a signed report carries (github.com/in-toto/attestation): its subject
 * is the report's JSON by digest, its predicate the test-result predicate v0.1 — the shape
 * supply-chain verifiers already read — derived from the report's checks alone.
 */

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1' as const;
export const TEST_RESULT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1' as const;
/** The subject's name: what `report --signed` writes beside the envelope, and what verify-report checks. */
export const REPORT_SUBJECT = 'report.json';

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * The verdict of the checks, whatever side they grade: a failing error check fails (FAILED); a
 * failing warning check, or a check still pending (its window was open when signed: the verdict
 * may still change), warns (WARNED); else PASSED. Checks not exercised are listed in no list:
 * the report says why. `pendingChecks`: the warned ones that are pending, which the test-result
 * predicate has no list for (the subject's annotations carry it: `pending_checks`).
 */
export function testResults(checks: Pick<Report['checks'][number], 'id' | 'severity' | 'status'>[]) {
  const ids = (keep: (c: (typeof checks)[number]) => boolean) => checks.filter(keep).map((c) => c.id);
  const failedTests = ids((c) => c.status === 'fail' && c.severity === 'error');
  const warnedTests = ids((c) => (c.status === 'fail' && c.severity !== 'error') || c.status === 'pending');
  const passedTests = ids((c) => c.status === 'pass');
  const pendingChecks = ids((c) => c.status === 'pending');
  const result: TestResultPredicate['result'] = failedTests.length ? 'FAILED' : warnedTests.length ? 'WARNED' : 'PASSED';
  return { result, passedTests, warnedTests, failedTests, pendingChecks };
}

export interface StatementInput {
  /** The report's JSON, exactly the bytes served beside the envelope. */
  reportText: string;
  report: Report;
  /** The active scenario document (GET /admin/scenario); named by its digest without `seed`. */
  scenario: unknown;
  version: string;
  /** Hosted mode: the tenant whose session it is (named, so one integrator cannot pass off another's report). */
  tenant?: Tenant;
}

/** A hosted tenant as a signed statement names it. */
export interface Tenant {
  id: string;
  name: string;
}

/**
 * The scenario a statement names by digest: the document without its `seed`. Unset, the seed is
 * drawn at random on every start, so the same scenario would get another digest each time; the
 * seed the session ran with is the subject's annotation `seed`.
 */
export function scenarioDigest(scenario: unknown): string {
  const unseeded =
    scenario !== null && typeof scenario === 'object' && !Array.isArray(scenario) && 'seed' in scenario
      ? Object.fromEntries(Object.entries(scenario).filter(([k]) => k !== 'seed'))
      : scenario;
  return sha256(canonicalJson(unseeded));
}

export function reportStatement({ reportText, report, scenario, version, tenant }: StatementInput): ReportStatement {
  // Set by proxy mode when it grades an upstream wallet; read generically so this file need not know its shape.
  const upstream = (report as { upstream?: unknown }).upstream;
  const annotations: Record<string, unknown> = {
    session_id: report.session.id,
    seed: report.session.seed,
    started_at: report.session.started_at,
    ended_at: report.generated_at,
    ...(report.user_id === undefined ? {} : { user_id: report.user_id }),
    ...(upstream === undefined ? {} : { upstream }),
    ...(tenant === undefined ? {} : { tenant_id: tenant.id, tenant_name: tenant.name }),
  };
  const { result, passedTests, warnedTests, failedTests, pendingChecks } = testResults(report.checks);
  // The test-result predicate has no list of pending checks; its warned list holds them with the
  // failing warnings. Named apart here, where annotations are free: a verifier can tell them apart.
  annotations.pending_checks = pendingChecks;
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: REPORT_SUBJECT, digest: { sha256: sha256(reportText) }, mediaType: 'application/json', annotations }],
    predicateType: TEST_RESULT_PREDICATE,
    predicate: {
      result,
      configuration: [
        { name: report.scenario, digest: { sha256: scenarioDigest(scenario) }, mediaType: 'application/json' },
        { name: 'wallet-sim', uri: `pkg:npm/wallet-sim@${version}`, annotations: { version } },
      ],
      passedTests,
      warnedTests,
      failedTests,
    },
  };
}
