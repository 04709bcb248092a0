// The dashboard's callback detail in proxy mode, in a real browser: both legs, what the provider
// sent and got, and what went to the operator's wallet and came back.
import { chromium } from 'playwright-core';
import t from 'tap';
import { bet, login, post } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../helpers/chromium.js';
import { startProxy, startUpstream } from './upstream.js';

t.setTimeout(120_000);

const missing = chromiumMissing('the dashboard test');
if (missing) t.comment(missing);
else
  t.test("a callback's detail shows the upstream leg", async (t) => {
    const up = await startUpstream(t);
    const proxy = await startProxy(
      t,
      { rules: [{ name: 'forced', when: { event_type: 'bet', user_id: 'dash-forced' }, then: { code: 'R1' } }] },
      up.url,
    );
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${proxy.base}/ui`);
    await page.locator('.live-live').waitFor();

    await post(proxy.url, login('dash'));
    const placed = bet('dash', 'g1', [['1', 'P', 10]], { currency: 'USD' });
    await post(proxy.url, placed);
    await page.locator('tr[data-id]', { hasText: placed.transaction_id }).click();
    const leg = page.getByLabel('Upstream wallet');
    t.match(await leg.innerText(), new RegExp(`forwarded to ${up.url} at .*; HTTP 200 after \\d+ ms`), 'forwarded, answered, timed');
    t.match(await page.getByLabel('Body the upstream sent').innerText(), /"latest_balance": 990/, "the upstream's reply");
    t.match(await page.getByLabel('Reply body').innerText(), /"latest_balance": 990/, 'what the provider got');
    await page.getByRole('button', { name: 'Close the details' }).click();

    const forced = bet('dash-forced', 'g1', [['1', 'P', 10]], { currency: 'USD' });
    await post(proxy.url, forced);
    await page.locator('tr[data-id]', { hasText: forced.transaction_id }).click();
    t.match(await page.getByLabel('Upstream wallet').innerText(), /not forwarded/, 'a forced code never went upstream');
  });

if (!missing)
  t.test('the header names the wallet under test, and the players are read-only (no Edit, no Add player)', async (t) => {
    const up = await startUpstream(t);
    const proxy = await startProxy(t, {}, up.url);
    await post(proxy.url, login('seen-player'));
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${proxy.base}/ui`);
    await page.getByLabel('Wallet under test').waitFor();
    t.match(await page.locator('header.top').innerText(), `wallet under test: ${up.url}`, 'the header names the upstream');
    const players = page.locator('section.players');
    await players.locator('tr[data-player="seen-player"]').waitFor();
    t.equal(await players.getByRole('button').count(), 0, 'no Edit nor Add player button (they would answer 409)');
    t.match(await players.innerText(), /read-only.*set them in that wallet itself/s);

    // The same dashboard in front of no wallet: the buttons are there, and no wallet is named.
    const { buildTestApp, listen } = await import('../helpers/app.js');
    const own = await buildTestApp();
    t.teardown(() => own.app.close());
    const base = await listen(own.app);
    await page.goto(`${base}/ui`);
    await page.getByRole('button', { name: 'Add player' }).waitFor();
    await page
      .getByRole('button', { name: /^Edit / })
      .first()
      .waitFor(); // Edit buttons outside proxy mode
    t.pass('Edit buttons outside proxy mode');
    t.equal(await page.getByLabel('Wallet under test').count(), 0);
  });
