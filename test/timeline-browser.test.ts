// Violations as timelines, in a real browser (Debian's chromium, playwright-core): a session played
// over HTTP (scripts/timeline-session.ts: a dropped reply never resent, a premature resend, a resend
// under a new transaction_id, a resend after a forced refusal) is drawn one timeline per violation,
// with its marks, in the HTML report (report --html) and in the dashboard's check detail; the retry
// gaps' histogram counts the gaps; nothing is fetched from outside; no inline style trips the
// dashboard's content security policy; the pictures fit 1,024 px; the "Loading…" line is gone; no band
// is drawn over a time-out's words.
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { formatHtml } from '../src/grading/format-html.js';
import { timelineSvg } from '../src/report/timeline.js';
import type { Report, ReportViolation } from '../src/protocol/types.generated.js';
import { playTimelineSession, type PlayedSession, TIMELINE_SCENARIO } from '../scripts/timeline-session.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from './helpers/chromium.js';
import { buildTestApp, listen } from './helpers/app.js';

const WAIT = 20_000;
t.setTimeout(180_000);

interface Opened {
  page: Page;
  external: string[];
  errors: string[];
}

/** A page that refuses and records every request beyond `origin`, and records every error (a CSP violation is one). */
async function guarded(t: Test, browser: Browser, origin: string): Promise<Opened> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  t.teardown(() => context.close().catch(() => {}));
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  const external: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.origin === origin) return route.fallback();
    external.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return { page, external, errors };
}

/** What one timeline shows, read from the page. */
async function marksOf(svg: Locator) {
  const count = (selector: string) => svg.locator(selector).count();
  return {
    lanes: await svg.locator('g.lane').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-lane'))),
    arrivals: await count('.mark.arrival'),
    dropped: await count('.mark.dropped'),
    callerGone: await count('.mark.caller-gone'),
    unanswered: await count('.mark.unanswered'),
    written: await count('.mark.reply'),
    forced: await count('.mark.reply.forced'),
    timeouts: await count('g.timeout'),
    minGaps: await count('.min-gap'),
    windows: await count('.window'),
    decided: await count('g.decided'),
    tooltips: await svg.locator('.mark title').allTextContents(),
  };
}

/** The timeline of the figure whose words name `tx`, among `figures`. */
const pictureOf = (figures: Locator, tx: string) => figures.filter({ hasText: tx }).first().locator('svg.timeline');

/** The marks each story must show (by transaction_id): the same in the report and the dashboard. */
async function checkStories(t: Test, figuresOf: (checkId: string) => Promise<Locator>, s: PlayedSession, report: Report): Promise<void> {
  const failing = report.checks.filter((c) => c.status === 'fail');
  t.ok(failing.length >= 4, `${failing.length} checks fail`);
  for (const c of failing) {
    const figures = await figuresOf(c.id);
    t.equal(await figures.locator('svg.timeline').count(), c.violations.length, `${c.id}: one timeline per violation`);
  }

  const lost = await marksOf(pictureOf(await figuresOf('LOST_REPLY_RETRIED'), s.lost));
  t.match(
    lost,
    { lanes: [`provider:${s.lost}`], arrivals: 1, dropped: 1, timeouts: 1, windows: 1, decided: 1 },
    'a dropped reply never resent',
  );
  t.match(lost.tooltips.join('\n'), new RegExp(`bet ${s.lost} arrived at .*\\nrequest \\{"headers"`), 'the arrival carries its request');
  t.match(
    lost.tooltips.join('\n'),
    /the connection was closed at .* without a reply.*\nreply \{"dropped":true,"never_sent"/s,
    'the cross says dropped',
  );

  const premature = await marksOf(pictureOf(await figuresOf('NO_PREMATURE_RETRY'), s.eager));
  t.match(
    premature,
    { lanes: [`provider:${s.eager}`], arrivals: 2, callerGone: 1, unanswered: 0, timeouts: 2, minGaps: 1, decided: 1 },
    'a resend long before the time-out: both attempts, the caller gone, the resend answered (drawn as what became of it)',
  );
  // The resend's reply; and the held first attempt's too once its hold ran out, if it has by the time the page reads it.
  t.ok(premature.written >= 1 && premature.written <= 2, `the replies written so far are drawn: ${premature.written}`);

  const renamed = await marksOf(pictureOf(await figuresOf('RETRY_SAME_TRANSACTION'), s.renamed));
  t.match(
    renamed,
    { lanes: [`provider:${s.dropped}`, `provider:${s.renamed}`], arrivals: 2, dropped: 1, decided: 1 },
    'a retry under a new id: two lanes',
  );

  const refused = await marksOf(pictureOf(await figuresOf('NO_RETRY_AFTER_REFUSAL'), s.refused));
  t.match(refused, { lanes: [`provider:${s.refused}`], arrivals: 2, forced: 1, decided: 1 }, 'a forced refusal');
}

/** Every picture on the page is at most 1,024 px wide. */
async function fits(t: Test, page: Page): Promise<void> {
  const widths = await page.locator('svg.timeline, svg.histogram').evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect().width));
  t.ok(widths.length > 0 && widths.every((w) => w > 300 && w <= 1024), `every picture fits 1,024 px: ${widths.map(Math.round).join(', ')}`);
}

/** Each lane's "time-out" words: nothing drawn over them (the retry window's band runs right under them). */
async function timeoutWordsClear(t: Test, page: Page): Promise<void> {
  const words = await page.locator('svg.timeline g.lane text').evaluateAll((texts) =>
    texts
      .filter((w) => w.textContent?.startsWith('time-out'))
      .map((w) => {
        const b = w.getBoundingClientRect();
        const points = [0.1, 0.5, 0.9].flatMap((fx) => [0.25, 0.5, 0.75].map((fy) => [b.left + fx * b.width, b.top + fy * b.height]));
        const over = points.map(([px, py]) => document.elementFromPoint(px!, py!)).filter((e) => e && e !== w && !w.contains(e));
        return { x: Math.round(b.left), over: over.map((e) => e!.getAttribute('class') ?? e!.tagName) };
      }),
  );
  t.ok(words.length > 0, `${words.length} time-out words drawn`);
  t.same(
    words.filter((w) => w.over.length),
    [],
    'no band or mark is drawn over the time-out words',
  );
}

const missing = chromiumMissing('the timeline browser tests are');
if (missing) {
  t.test('timelines in a browser', { skip: missing }, async () => {});
} else {
  t.test('a session drawn as timelines: the HTML report and the dashboard', async (t) => {
    const { app }: { app: FastifyInstance } = await buildTestApp(TIMELINE_SCENARIO);
    t.teardown(() => app.close());
    const origin = await listen(app);
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
    t.teardown(() => browser.close());
    const played = await playTimelineSession(origin);
    const report = (await app.inject({ method: 'GET', url: '/admin/report' })).json() as Report;

    t.test('the HTML report (report --html)', async (t) => {
      const o = await guarded(t, browser, origin);
      await o.page.setContent(formatHtml(report, { url: origin, failOn: 'error' }));
      const figures = async (id: string) => o.page.locator(`tr.pictures[data-check="${id}"] figure`);
      await checkStories(t, figures, played, report);
      // The words stay beside each picture: its violation's message.
      const lost = report.checks.find((c) => c.id === 'LOST_REPLY_RETRIED')!.violations[0]!;
      t.match(await (await figures('LOST_REPLY_RETRIED')).first().locator('figcaption').textContent(), lost.message);
      const buckets = report.timing.retry_gap_ms!.buckets!;
      const drawn = await o.page.locator('svg.histogram .bucket').evaluateAll((gs) => gs.map((g) => Number(g.getAttribute('data-count'))));
      t.same(
        drawn,
        buckets.map((b) => b.count),
        'the histogram draws every bucket',
      );
      t.equal(
        drawn.reduce((a, b) => a + b, 0),
        2,
        'two gaps: the impatient resend and the resend after the refusal',
      );
      t.equal(await o.page.locator('svg.histogram .threshold').count(), 2, 'the minimum gap and the time-out drawn');
      await timeoutWordsClear(t, o.page);
      await fits(t, o.page);
      t.same(o.external, [], 'nothing fetched from outside');
      t.same(o.errors, [], 'no page errors');
    });

    t.test("the soak's picture: a 12 s reply the caller left at its 10 s time-out, the retry window from there", async (t) => {
      const o = await guarded(t, browser, origin);
      const at = (ms: number) => new Date(Date.parse('2026-11-30T09:00:45.971Z') + ms).toISOString();
      const v: ReportViolation = {
        message:
          'the reply to bet b1 of p1 (#1) was lost (the caller closed the connection first) and the transaction was never resent within 60 s',
        journal_ids: [1],
        decided_at: at(70_000),
        evidence: [
          {
            journal_id: 1,
            received_at: at(0),
            replied_at: at(12_000),
            closed_at: at(10_000),
            transaction_id: 'b1',
            event_type: 'bet',
            fate: 'caller_gone',
            delay_ms: 12_000,
            outcome: 'lost',
            known_at: at(10_000),
          },
        ],
      };
      const thresholds = { client_timeout_s: 10, min_retry_gap_ms: 500, retry_window_s: 60 };
      await o.page.setContent(timelineSvg(v, { thresholds, check: 'LOST_REPLY_RETRIED' }));
      await timeoutWordsClear(t, o.page);
    });

    t.test("the dashboard's check detail", async (t) => {
      const o = await guarded(t, browser, origin);
      await o.page.goto(`${origin}/ui`);
      await o.page.locator('[data-check="LOST_REPLY_RETRIED"][data-status="fail"]').waitFor();
      t.equal(await o.page.locator('.loading').count(), 0, 'the "Loading…" line is gone once the dashboard is up');
      t.notMatch(await o.page.locator('body').innerText(), /Loading the wallet-sim dashboard/);
      const figures = async (id: string) => {
        await o.page.locator(`[data-check="${id}"] .show-timelines`).click();
        await o.page.locator(`section.pictures[data-picture="${id}"]`).waitFor();
        return o.page.locator('section.pictures figure');
      };
      await checkStories(t, figures, played, report);
      await fits(t, o.page);
      await o.page.locator('.show-histogram').click();
      const histogram = o.page.locator('section.pictures[data-picture="timing"] svg.histogram');
      await histogram.waitFor();
      t.equal(
        await histogram.locator('.bucket').count(),
        report.timing.retry_gap_ms!.buckets!.length,
        'the histogram, in the dashboard too',
      );
      await o.page.locator('section.pictures button', { hasText: 'Close' }).click();
      await o.page.locator('section.pictures').waitFor({ state: 'detached' });
      t.same(o.external, [], 'nothing fetched from outside');
      t.same(o.errors, [], 'no page errors: no inline style refused by the content security policy');
    });
  });
}
