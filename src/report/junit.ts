/**
 * JUnit XML, the report format every CI understands (GitHub Actions test reporters, GitLab,
 * Jenkins). A tiny format: testsuites > testsuite > testcase, with <failure>, <error> or <skipped>.
 */

export interface JUnitCase {
  name: string;
  classname: string;
  /** Seconds. */
  time?: number;
  /** error: the case could not be run at all (the probe stopped there: nothing was judged), unlike a failure. */
  status: 'pass' | 'fail' | 'error' | 'skip';
  /** One line: the failure's or error's message attribute, or the skip reason. */
  message?: string;
  /** The failure's body: every detail, request and reply. */
  details?: string;
  /** A passed case's warning: its own <system-out> (JUnit has no warning status; reporters show a case's output). */
  warning?: string;
}

export interface JUnitSuite {
  name: string;
  timestamp?: string;
  time?: number;
  cases: JUnitCase[];
  properties?: Record<string, string>;
  systemOut?: string;
}

/** Text for an attribute or an element: escaped, and without the characters XML 1.0 forbids. */
export function xmlEscape(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const attrs = (a: Record<string, string | number | undefined>) =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');

const seconds = (t: number | undefined) => (t === undefined ? undefined : t.toFixed(3));

export function junitXml(suites: JUnitSuite[]): string {
  const count = (s: JUnitSuite, status: JUnitCase['status']) => s.cases.filter((c) => c.status === status).length;
  const total = (status?: JUnitCase['status']) => suites.reduce((n, s) => n + (status ? count(s, status) : s.cases.length), 0);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(`<testsuites${attrs({ tests: total(), failures: total('fail'), errors: total('error'), skipped: total('skip') })}>`);
  for (const s of suites) {
    out.push(
      `  <testsuite${attrs({ name: s.name, tests: s.cases.length, failures: count(s, 'fail'), errors: count(s, 'error'), skipped: count(s, 'skip'), timestamp: s.timestamp, time: seconds(s.time) })}>`,
    );
    if (s.properties && Object.keys(s.properties).length) {
      out.push('    <properties>');
      for (const [name, value] of Object.entries(s.properties)) out.push(`      <property${attrs({ name, value })}/>`);
      out.push('    </properties>');
    }
    for (const c of s.cases) {
      const open = `    <testcase${attrs({ classname: c.classname, name: c.name, time: seconds(c.time) })}`;
      if (c.status === 'pass' && c.warning)
        out.push(`${open}>`, `      <system-out>${xmlEscape(`WARNING: ${c.warning}`)}</system-out>`, '    </testcase>');
      else if (c.status === 'pass') out.push(`${open}/>`);
      else if (c.status === 'skip') out.push(`${open}>`, `      <skipped${attrs({ message: c.message })}/>`, '    </testcase>');
      else if (c.status === 'error')
        out.push(
          `${open}>`,
          `      <error${attrs({ message: c.message, type: 'NotChecked' })}>${xmlEscape(c.details ?? '')}</error>`,
          '    </testcase>',
        );
      else
        out.push(
          `${open}>`,
          `      <failure${attrs({ message: c.message, type: 'AssertionError' })}>${xmlEscape(c.details ?? '')}</failure>`,
          '    </testcase>',
        );
    }
    if (s.systemOut) out.push(`    <system-out>${xmlEscape(s.systemOut)}</system-out>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
