// A hosted tenant's dashboard (/t/:id/ui) in Debian's chromium: it asks for the tenant's token,
// keeps it for the tab, reads that tenant's admin API and event stream only, and shows that
// tenant's callbacks live, never another's.
import { type Browser, chromium, type Request } from 'playwright-core';
import t from 'tap';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../helpers/chromium.js';
import { buildHostedTestApp, callbackHeaders, createTenant, loginOf } from '../helpers/hosted.js';

t.setTimeout(180_000);
const WAIT = 20_000;

const missing = chromiumMissing('the hosted dashboard browser test is');
if (missing) {
  t.test('hosted dashboard in a browser', { skip: missing }, async () => {});
} else {
  let browser: Browser | undefined;
  t.teardown(async () => {
    await browser?.close();
  });

  t.test("a tenant's dashboard: its token, its callbacks, live; nothing of another tenant", async (t) => {
    const { app } = await buildHostedTestApp();
    const a = await createTenant(app, { name: 'Acme' });
    const b = await createTenant(app, { name: 'Bravo' });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    t.teardown(() => app.close());
    const send = (x: typeof a, user: string) => {
      const body = loginOf(user);
      return fetch(`${origin}/t/${x.id}/callback`, { method: 'POST', headers: callbackHeaders(x), body: JSON.stringify(body) }).then(
        () => body.transaction_id,
      );
    };
    const before = await send(a, 'alice');
    const others = await send(b, 'bob');

    browser ??= await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    t.teardown(() => context.close().catch(() => undefined));
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    const requests: Request[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      if (r.status() === 404) errors.push(`404 ${r.url()}`);
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource.*401/.test(m.text())) errors.push(m.text());
    });

    await page.goto(`${origin}/t/${a.id}/ui`);
    await page.getByRole('dialog', { name: 'Tenant token' }).waitFor();
    await page.getByLabel('Token', { exact: true }).fill(a.token);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.locator('.live-live').waitFor();
    await page.locator('tr[data-id]', { hasText: before }).waitFor();
    const live = await send(a, 'carol');
    await page.locator('tr[data-id]', { hasText: live }).waitFor();
    t.pass("the tenant's callbacks, the one before and the one sent live");
    t.equal(await page.locator('tr[data-id]', { hasText: others }).count(), 0, "another tenant's callback is not shown");

    const api = requests.map((r) => new URL(r.url())).filter((u) => /\/admin\//.test(u.pathname));
    t.ok(api.length > 0);
    t.same(
      api.filter((u) => !u.pathname.startsWith(`/t/${a.id}/admin/`)).map((u) => u.pathname),
      [],
      "every admin call goes to the tenant's own routes",
    );
    const withToken = requests.filter((r) => r.url().includes(`/t/${a.id}/admin/`) && r.headers().authorization === `Bearer ${a.token}`);
    t.ok(withToken.length > 0, 'sent as Authorization: Bearer');
    t.notOk(
      requests.some((r) => r.url().includes(a.token)),
      'the token never travels in a URL',
    );
    t.same(errors, [], 'no page errors');
  });
}
