// docs/certification.md's pictures, from a real session (scripts/timeline-session.ts) so they cannot
// drift from what the product draws: the HTML report's timelines and retry-gap histogram, and the
// dashboard's check detail. Debian's chromium (playwright-core); every request that would leave
// 127.0.0.1 is refused and fails the run.
//
//   npm run build && node dist/scripts/screenshots.js            # writes docs/images/timeline-*.png
//   WALLET_SIM_CHROMIUM=/path/to/chromium node dist/scripts/screenshots.js
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { formatHtml } from '../src/grading/format-html.js';
import { ROOT } from '../src/kernel/paths.js';
import { startSimulator } from '../src/index.js';
import { playTimelineSession, SHOTS, TIMELINE_SCENARIO } from './timeline-session.js';

const CHROMIUM = process.env.WALLET_SIM_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
];
const OUT = join(ROOT, 'docs/images');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-shots-'));
  const scenario = join(dir, 'timelines.json');
  writeFileSync(scenario, JSON.stringify(TIMELINE_SCENARIO));
  const sim = await startSimulator({ scenario, port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
  const external: string[] = [];
  try {
    await playTimelineSession(sim.url);
    const report = await sim.report();
    const html = join(dir, 'report.html');
    writeFileSync(html, formatHtml(report, { url: sim.url, failOn: 'error' }));
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'file:' || url.protocol === 'data:' || url.origin === new URL(sim.url).origin) return route.fallback();
      external.push(url.href);
      return route.abort();
    });
    const page = await context.newPage();
    await page.goto(`file://${html}`);
    const row = (id: string) => page.locator(`tr.pictures[data-check="${id}"] figure`).first();
    await shot(page, row('LOST_REPLY_RETRIED'), 'timeline-report-lost.png');
    await shot(page, row('NO_PREMATURE_RETRY'), 'timeline-report-premature.png');
    await shot(page, row('RETRY_SAME_TRANSACTION'), 'timeline-report-new-id.png');
    await shot(page, page.locator('figure.picture', { has: page.locator('svg.histogram') }), 'timeline-report-histogram.png');

    await page.goto(`${sim.url}/ui`);
    await page.locator('[data-check="RETRY_SAME_TRANSACTION"] .show-timelines').click();
    await shot(page, page.locator('section.pictures'), 'timeline-dashboard.png');
    await context.close();
  } finally {
    await browser.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (external.length) throw new Error(`requests left 127.0.0.1: ${external.join(', ')}`);
}

async function shot(_page: Page, element: ReturnType<Page['locator']>, file: keyof typeof SHOTS): Promise<void> {
  await element.scrollIntoViewIfNeeded();
  await element.screenshot({ path: join(OUT, file) });
  console.log(`wrote docs/images/${file}: ${SHOTS[file]}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
