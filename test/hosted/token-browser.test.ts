// A hosted tenant's dashboard and its token, in Debian's chromium: nothing is called before a
// token is given; a refused token (a wrong one, another tenant's) is said in the dialog; a token
// the page kept that stopped working is said too; with another tenant's token kept, the panels say
// what they could not read instead of "No players", "no rules" or "No runs yet".
import { type Browser, chromium, type Page } from 'playwright-core';
import t from 'tap';
import { listen } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../helpers/chromium.js';
import { asHost, buildHostedTestApp, callbackHeaders, createTenant, loginOf } from '../helpers/hosted.js';

t.setTimeout(120_000);
const WAIT = 20_000;

const useToken = async (page: Page, token: string) => {
  await page.getByLabel('Token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Use token' }).click();
};

const missing = chromiumMissing('the hosted token browser test is');
if (missing) {
  t.test('hosted token in a browser', { skip: missing }, async () => {});
} else {
  let browser: Browser | undefined;
  t.teardown(async () => {
    await browser?.close();
  });

  t.test('the token: asked first, a refused one said in the dialog, another tenant’s never shown as “nothing”', async (t) => {
    const [{ app }, launched] = await Promise.all([
      buildHostedTestApp({ allowPrivateTargets: true }),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 }),
    ]);
    browser = launched;
    t.teardown(() => app.close());
    const origin = await listen(app);
    const a = await createTenant(app, { name: 'Acme' });
    const b = await createTenant(app, { name: 'Bravo' });
    const context = await launched.newContext({ viewport: { width: 1280, height: 800 } });
    t.teardown(() => context.close().catch(() => undefined));
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    const refused: string[] = [];
    const errors: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 401) refused.push(r.url());
    });
    page.on('pageerror', (e) => errors.push(e.message));

    // No token kept: the dialog first, and not one call refused behind it.
    await page.goto(`${origin}/t/${a.id}/ui`);
    const dialog = page.getByRole('dialog', { name: 'Tenant token' });
    await dialog.waitFor();
    t.same(refused, [], 'nothing called before the token is given');
    t.equal(await page.getByText('No players.').count(), 0, 'no "No players" while signed out');

    await useToken(page, 'not-a-token');
    await dialog
      .getByRole('alert')
      .getByText(/^That token was refused \(.+\): it is neither this tenant's token nor the host's/)
      .waitFor();
    t.equal(await dialog.count(), 1, 'the dialog stays open');
    await useToken(page, b.token);
    await dialog.getByRole('alert').getByText(`That token is another tenant's`, { exact: false }).waitFor();
    t.match(await dialog.getByRole('alert').textContent(), `the token the host gave you for tenant ${a.id}`);
    t.equal(await page.evaluate(() => Object.keys(sessionStorage).length), 0, 'a refused token is not kept');

    // Another tenant's token kept (from before): the panels say they could not read, not that there is nothing.
    await page.evaluate(([key, value]) => sessionStorage.setItem(key!, value!), [`wallet-sim.admin-token/t/${a.id}`, b.token]);
    await page.reload();
    await page
      .getByRole('alert')
      .filter({ hasText: /tenant/ })
      .first()
      .waitFor();
    await page.locator('.players').getByText('Not read: see the message at the top.').waitFor();
    await page.locator('.scenario').getByText('Not read: see the message at the top.').waitFor();
    t.equal(await page.getByText('No players.').count(), 0, 'no "No players" under a 403');
    t.equal(await page.getByText('This scenario has no rules', { exact: false }).count(), 0, 'no "no rules" under a 403');
    await page.getByRole('link', { name: 'Probe your wallet' }).click();
    await page.locator('.probe-runs').getByRole('alert').getByText("this token is another tenant's", { exact: false }).waitFor();
    t.equal(await page.getByText('No runs yet.').count(), 0, 'no "No runs yet" under a 403');

    // The right token: the callbacks; Clear says the list was cleared, not that there are none.
    await page.getByRole('button', { name: 'Forget token' }).click();
    await useToken(page, a.token);
    await page.getByRole('link', { name: 'Callbacks' }).click();
    const body = loginOf('alice');
    await fetch(`${origin}/t/${a.id}/callback`, { method: 'POST', headers: callbackHeaders(a), body: JSON.stringify(body) });
    await page.locator('tr[data-id]', { hasText: body.transaction_id }).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('Cleared: callbacks from now on show up here.', { exact: false }).waitFor();
    t.pass('Clear says it cleared the list');

    // A URL that is not http(s): said with the field's label, no JSON pointer.
    await page.getByRole('link', { name: 'Probe your wallet' }).click();
    await page.getByLabel('Wallet callback URL').fill('ftp://wallet.example.com/callback');
    await page.getByLabel('Api-Id').fill('x');
    await page.getByLabel('Api-Key').fill('y');
    await page.getByLabel('Player (user_id)').fill('p');
    await page.getByRole('button', { name: 'Start probe' }).click();
    await page.getByRole('alert').getByText('Wallet callback URL: not an http: or https: URL. Give an http:// or https:// URL.').waitFor();

    // The token kept is rotated by the host: said in the dialog; the checklist names the tenant's route.
    // (Rotated while the tab shows another page: an open dashboard would notice at once, its stream ended.)
    await page.goto('about:blank');
    refused.length = 0;
    const rotated = await fetch(`${origin}/tenants/${a.id}/token`, { method: 'POST', headers: asHost });
    t.equal(rotated.status, 200);
    await page.goto(`${origin}/t/${a.id}/ui`);
    await dialog.getByText('The token this tab kept was refused', { exact: false }).waitFor();
    t.ok(refused.length > 0, 'the kept token was tried, and refused');
    await page.locator('.checklist').getByText(`GET /t/${a.id}/admin/report`, { exact: false }).waitFor();
    t.same(errors, [], 'no page errors');
  });
}
