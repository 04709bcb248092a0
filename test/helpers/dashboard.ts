// A dashboard page in Debian's chromium for the browser tests: one browser per test file, a fresh
// context per page, every request kept on the simulator's origin and every page error collected.
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';

export const WAIT = 20_000;

export interface Dashboard {
  page: Page;
  /** Requests that tried to leave the simulator's origin (aborted). */
  external: string[];
  /** Page errors and console errors, but for a failed load whose status `allowStatus` names. */
  errors: string[];
}

let browser: Browser | undefined;

/** Opens `url` (a page of the simulator at `origin`) in a fresh context, closed when `t` ends. */
export async function openDashboard(t: Test, origin: string, url: string, options: { allowStatus?: RegExp } = {}): Promise<Dashboard> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  t.teardown(() => context.close().catch(() => undefined));
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  const external: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const at = new URL(route.request().url());
    if (at.protocol === 'data:' || at.origin === origin) return route.fallback();
    external.push(at.href);
    return route.abort();
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (options.allowStatus && /Failed to load resource/.test(m.text()) && options.allowStatus.test(m.text())) return;
    errors.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  return { page, external, errors };
}

/** Closes the browser the tests of this file shared (call from the file's own teardown). */
export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** Every request stayed on the simulator and the page threw nothing. */
export function clean(t: Test, d: Dashboard): void {
  t.same(d.external, [], 'no request left the simulator');
  t.same(d.errors, [], 'no page errors');
}
