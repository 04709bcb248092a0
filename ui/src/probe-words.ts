// What the probe page says when the host refuses a run: what happened, and what to do next.
import { DEFAULT_TIMEOUT_MS } from '../../src/client/http.js';
import { type FormLabels, inFormTerms } from '../../src/text/form-terms.js';
import { count } from '../../src/text/plural.js';

/** The probe form's labels, by the field each fills. */
export const FORM_LABELS: FormLabels = {
  url: 'Wallet callback URL',
  api_id: 'Api-Id',
  api_key: 'Api-Key',
  user: 'Player (user_id)',
  currency: 'Currency',
  decimals: 'Decimals',
};
import { ApiError, Unauthorized } from './api.js';
import type { CheckLine, ProbeRun } from './probe-api.js';

/** The form's fields, by the JSON pointer the API names them with. */
export const FIELDS = {
  '/url': FORM_LABELS.url,
  '/api_id': FORM_LABELS.api_id,
  '/api_key': FORM_LABELS.api_key,
  '/user': FORM_LABELS.user,
  '/currency': FORM_LABELS.currency,
  '/decimals': FORM_LABELS.decimals,
} as const;
export type Field = keyof typeof FIELDS;

export interface Problem {
  text: string;
  /** The field at fault, when one is. */
  field?: Field;
  /** A run of this tenant is going: the page follows it. */
  running?: boolean;
}

/** In about so long, and at what time (a 429's Retry-After). */
export function retryIn(seconds: number, now = Date.now()): string {
  const at = new Date(now + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const span = seconds < 90 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
  return `${span} (at ${at})`;
}

/** A refused POST /t/<id>/probe, in words. */
export function startProblem(e: unknown): Problem {
  if (e instanceof Unauthorized) return { text: "Enter this tenant's token (the host gave it to you with the tenant), then start again." };
  if (!(e instanceof ApiError))
    return { text: `The host did not answer (${(e as Error).message}): check your connection, then start the run again.` };
  switch (e.code) {
    case 'PROBE_TARGET_REFUSED': {
      const detail = /^probe target refused: (.*?)(; this host probes.*)?$/.exec(e.message)?.[1] ?? e.message;
      return {
        field: '/url',
        text:
          `The host will not probe this URL: ${detail}. It probes public addresses only: ` +
          'give the URL your wallet answers at from the internet (not localhost, nor a private, shared or link-local address).',
      };
    }
    case 'PROBE_RUNNING':
      return {
        running: true,
        text: 'A run of yours is still going (one at a time): follow it below, and start the next once it has its verdict.',
      };
    case 'RATE_LIMITED':
      return {
        text:
          'You have started as many probe runs as this host allows in an hour. ' +
          (e.retryAfterS === undefined ? 'Try again later.' : `Try again in ${retryIn(e.retryAfterS)}.`) +
          ' The previous runs and their reports stay below.',
      };
    case 'FORBIDDEN':
      return {
        text: 'This token is another tenant\'s: use "Forget token" at the top, then enter the token the host gave for this tenant.',
      };
  }
  const detail = e.details[0];
  if (detail && detail.pointer in FIELDS)
    return { field: detail.pointer as Field, text: `${FIELDS[detail.pointer as Field]}: ${detail.message}. Correct it and start again.` };
  // (the API names the field by its JSON pointer: the form by its label)
  if (/\/url\b/.test(e.message))
    return { field: '/url', text: `${FIELDS['/url']}: ${e.message.replace(/^\/url (is )?/, '')}. Give an http:// or https:// URL.` };
  return { text: `The host did not start the run: ${e.message}` };
}

/** Why the previous runs could not be read, and what to do. */
export function runsProblemOf(e: unknown): string {
  if (e instanceof Unauthorized) return "The runs are not read yet: enter this tenant's token.";
  if (e instanceof ApiError && e.code === 'FORBIDDEN')
    return 'The runs could not be read: this token is another tenant\'s. Use "Forget token" at the top, then enter the token the host gave for this tenant.';
  return `The runs could not be read: ${(e as Error).message}. Reload the page to try again.`;
}

/** A run's words (the API's names of its fields, or the CLI's options) as the form says them. */
export const formTerms = (message: string, run: Pick<ProbeRun, 'target'>) =>
  inFormTerms(message, { url: run.target.url, user: run.target.user, timeoutMs: DEFAULT_TIMEOUT_MS, labels: FORM_LABELS });

/** The one sentence a run's state comes to (the page's status line, read out by screen readers). */
export function runSentence(run: ProbeRun): string {
  // Said once while it runs (the status line is read out on each change): the count is in the table.
  if (run.state === 'running') return `Probing ${run.target.url}: the checks appear below as they finish…`;
  if (run.state === 'failed')
    return `The run failed: ${run.message ?? 'the probe itself stopped'}. Start it again; if it fails again, tell the host's operator.`;
  const n = (status: CheckLine['status']) => run.checks.filter((c) => c.status === status).length;
  const [passed, failed, warned, skipped] = [n('pass'), n('fail'), n('warn'), n('skip')];
  // Counted as the signed report counts them: a warned check is not a passed one, a skipped one in no list.
  const rest = [`${passed} passed`, ...(warned ? [`${warned} with a warning`] : []), ...(skipped ? [`${skipped} not judged`] : [])].join(
    ', ',
  );
  // Named as the CLI probe's verdict line names them: "PASS (1 warning: unknown-player)".
  const warnings = warned
    ? ` (${count(warned, { one: 'warning', other: 'warnings' })}: ${run.checks
        .filter((c) => c.status === 'warn')
        .map((c) => c.name)
        .join(', ')})`
    : '';
  if (run.verdict === 'PASS') return `PASS${warnings}: the wallet passed every check (${rest}).`;
  if (run.verdict === 'FAIL') {
    const names = run.checks.filter((c) => c.status === 'fail').map((c) => c.name);
    if (!names.length) return 'FAIL: the wallet failed checks of the report: the HTML report says which, and what to change.';
    return (
      `FAIL: ${failed} of ${run.checks.length} checks failed (${names.join(', ')}); ${rest}. ` +
      `Each failed check below says what to change; fix ${failed === 1 ? 'it' : 'them'} and run again.`
    );
  }
  return `NOT CHECKED: the probe could not check the wallet: ${formTerms(run.message ?? 'see the report', run)}.`.replace(
    /([.?])\.$/,
    '$1',
  );
}
