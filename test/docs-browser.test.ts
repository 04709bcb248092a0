// Swagger UI in a real browser: Debian's chromium, driven by playwright-core, runs a login and a
// bet through "Try it out" against a simulator on 127.0.0.1 and reads the rendered replies.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from './helpers/chromium.js';
import t from 'tap';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { balanceOf, buildTestApp } from './helpers/app.js';

const WAIT = { timeout: 20_000 };

t.setTimeout(90_000);

const missing = chromiumMissing('the Swagger UI browser test is');
if (missing) {
  t.test('Swagger UI: Try it out runs a login and a bet against the simulator', { skip: missing }, async () => {});
} else {
  t.test('Swagger UI: Try it out runs a login and a bet against the simulator', async (t) => {
    const { app, sim } = await buildTestApp();
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const profile = mkdtempSync(join(tmpdir(), 'wallet-sim-chromium-'));
    let context: BrowserContext | undefined;
    t.teardown(async () => {
      await context?.close().catch(() => {});
      await app.close();
      rmSync(profile, { recursive: true, force: true });
    });

    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 30_000,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(WAIT.timeout);
    const external: string[] = [];
    const errors: string[] = [];
    // Nothing may leave the machine: every request must go to the simulator.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      external.push(url);
      return route.abort();
    });
    page.on('pageerror', (e) => errors.push(e.message));

    await page.goto(`${origin}/docs`);
    const op = page.locator('#operations-callback-callback');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();

    const headerValue = (name: string) => op.locator(`.parameters input[placeholder="${name}"]`).inputValue();
    t.equal(await headerValue('Api-Id'), 'sandbox', 'Api-Id pre-filled from the scenario');
    t.equal(await headerValue('Api-Key'), 'sandbox-key', 'Api-Key pre-filled from the scenario');
    t.equal(await headerValue('Callback-URL'), `${origin}/callback`, 'Callback-URL pre-filled with the simulator');
    t.match(await op.locator('.body-param textarea').inputValue(), /"event_type": "login"/, 'the login example is in the body');

    await op.locator('button.execute').click();
    const reply = await renderedReply(page, 'login');
    t.match(
      reply.body,
      { code: 'R0', event_type: 'login', user_id: 'player-1', latest_balance: 1000000 },
      'R0 and the balance are rendered',
    );
    t.match(reply.headers, /api-id: sandbox/, 'the reply headers are rendered');

    await op.locator('.opblock-section-request-body select.examples-select-element').selectOption('bet');
    await t.resolves(
      page.waitForFunction(
        () =>
          /"event_type": "bet"/.test(
            document.querySelector<HTMLTextAreaElement>('#operations-callback-callback .body-param textarea')?.value ?? '',
          ),
        null,
        WAIT,
      ),
      'the bet example is in the body',
    );
    await op.locator('button.execute').click();
    const bet = await renderedReply(page, 'bet');
    t.match(bet.body, { code: 'R0', event_type: 'bet', latest_balance: 985000 }, 'the bet is debited');
    t.equal(balanceOf(sim, 'player-1'), '985000', 'and the simulator agrees');

    t.same(external, [], 'no request left 127.0.0.1');
    t.same(errors, [], 'no page errors');
  });
}

/** Waits until Swagger UI renders the reply to the given event, and returns it. */
async function renderedReply(page: Page, event: string): Promise<{ body: Record<string, unknown>; headers: string }> {
  const selector = '#operations-callback-callback .live-responses-table';
  await page.waitForFunction(
    ([sel, ev]) => {
      const text = document.querySelector(`${sel} .response-col_description pre`)?.textContent ?? '';
      return text.includes(`"event_type": "${ev}"`);
    },
    [selector, event] as const,
    WAIT,
  );
  const body = await page.locator(`${selector} .response-col_description pre`).first().textContent();
  const all = (await page.locator(selector).textContent()) ?? '';
  return { body: JSON.parse(body ?? '{}'), headers: all.slice(all.indexOf('Response headers')) };
}
