import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';
import type { Report, ReportStatement, SignedReport } from '../protocol/types.generated.js';
import { IN_TOTO_PAYLOAD_TYPE, pae } from './dsse.js';
import type { Signer } from './signing-key.js';
import { reportStatement, type Tenant } from './statement.js';

/** wallet-sim's version, as the statement's configuration names it. */
export const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * GET /admin/report?signed=true's body (SignedReport): the report's JSON text (indented, ending in
 * a newline: a file a person can read), the statement about it, and its DSSE envelope. The text is
 * sent as a string, so no client's JSON round trip can change a byte the digest covers.
 */
export function signReport(signer: Signer, report: Report, scenario: unknown, tenant?: Tenant): SignedReport {
  const reportText = `${JSON.stringify(report, null, 2)}\n`;
  return signStatement(signer, reportText, reportStatement({ reportText, report, scenario, version: VERSION, tenant }));
}

/** The DSSE envelope of a statement about a report's text, and that text (the hosted probe's reports: src/routes/probe-sign.ts). */
export function signStatement(signer: Signer, reportText: string, statement: ReportStatement): SignedReport {
  const payload = Buffer.from(JSON.stringify(statement), 'utf8');
  const sig = signer.sign(pae(IN_TOTO_PAYLOAD_TYPE, payload));
  return {
    envelope: {
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      payload: payload.toString('base64'),
      signatures: [{ keyid: signer.keyid, sig: sig.toString('base64') }],
    },
    report: reportText,
  };
}
