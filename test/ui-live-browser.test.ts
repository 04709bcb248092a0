// The dashboard keeps up with what other clients do (issue: a stale page after an external change):
// a scenario replaced or a wallet reset by curl, the CLI or another tab shows on the open page
// without a reload; a stream refused for want of a slot still lists the journal and says why.
import t from 'tap';
import { chromiumMissing } from './helpers/chromium.js';
import { closeBrowser, clean, openDashboard, WAIT } from './helpers/dashboard.js';
import { bet, buildTestApp, listen, login, post } from './helpers/app.js';
import type { Page } from 'playwright-core';

t.setTimeout(240_000);

const live = (page: Page) => page.locator('.live-live').waitFor();
const row = (page: Page, transactionId: string) => page.locator('tr[data-id]', { hasText: transactionId });
const rows = (page: Page) => page.locator('tr[data-id]');
const json = { 'content-type': 'application/json' };

const ALPHA = {
  name: 'alpha',
  grading: { client_timeout_s: 30 },
  rules: [{ name: 'alpha rule', when: { event_type: 'bet' as const }, then: { delay_ms: 1 } }],
};
const BETA = {
  name: 'beta',
  credentials: { api_id: 'sandbox', api_key: 'sandbox-key' },
  currencies: { USD: 2, KRW: 0 },
  grading: { client_timeout_s: 5 },
  rules: [
    { name: 'beta first', when: { event_type: 'login' }, then: { code: 'R2' } },
    { name: 'beta second', when: { user_id: 'nobody' }, then: { code: 'R3' } },
  ],
};

const missing = chromiumMissing('the dashboard browser tests are');
if (missing) {
  t.test('dashboard follows external changes', { skip: missing }, async () => {});
} else {
  t.teardown(closeBrowser);

  t.test('a scenario replaced by another client: the header and each rule with its own when → then', async (t) => {
    const { app } = await buildTestApp(ALPHA);
    t.teardown(() => app.close());
    const origin = await listen(app);
    const d = await openDashboard(t, origin, `${origin}/ui`);
    const { page } = d;
    await live(page);
    await page.locator('tr[data-rule="alpha rule"]').waitFor();

    const put = await fetch(`${origin}/admin/scenario`, { method: 'PUT', headers: json, body: JSON.stringify(BETA) });
    t.equal(put.status, 200);
    // No callback in between: the stream says the scenario changed.
    await page.locator('.scenario-name', { hasText: 'beta' }).waitFor();
    await page.locator('tr[data-rule="beta second"]').waitFor();
    t.equal(await page.locator('tr[data-rule="alpha rule"]').count(), 0, "the old scenario's rule is gone");
    t.match(await page.locator('tr[data-rule="beta first"]').innerText(), /\{"event_type":"login"\} → \{"code":"R2"\}/, 'its own rule');
    t.match(await page.locator('tr[data-rule="beta second"]').innerText(), /\{"user_id":"nobody"\} → \{"code":"R3"\}/);

    const sent = login('usd');
    await post(`${origin}/callback`, sent);
    await row(page, sent.transaction_id).waitFor();
    await page.waitForFunction(() => document.querySelector('tr[data-rule="beta first"] td:last-child')?.textContent === '1');
    t.equal(await page.locator('.scenario-name').innerText(), 'beta', 'still the new one after a callback');
    clean(t, d);
  });

  t.test('a reset or a cleared journal from any client empties the page; so does Switch with reset', async (t) => {
    const { app } = await buildTestApp(ALPHA);
    t.teardown(() => app.close());
    const origin = await listen(app);
    const d = await openDashboard(t, origin, `${origin}/ui`);
    const { page } = d;
    await live(page);
    const usd = { currency: 'USD' };
    const sent = [login('usd'), bet('usd', 'G1', [['1', 'P', 40]], usd), bet('usd', 'G2', [['1', 'P', 2]], usd)];
    for (const body of sent) await post(`${origin}/callback`, body);
    for (const body of sent) await row(page, body.transaction_id).waitFor();
    const balance = page.locator('tr[data-player="usd"] td.num');
    await balance.filter({ hasText: /^58$/ }).waitFor();
    await page.waitForFunction(() => document.querySelector('tr[data-rule="alpha rule"] td:last-child')?.textContent === '2');

    t.equal((await fetch(`${origin}/admin/reset`, { method: 'POST' })).status, 200);
    await page.getByText('No callbacks yet').waitFor();
    t.equal(await rows(page).count(), 0, 'the callbacks before the reset are gone');
    await balance.filter({ hasText: /^100$/ }).waitFor();
    await page.waitForFunction(() => document.querySelector('tr[data-rule="alpha rule"] td:last-child')?.textContent === '0');
    t.pass("the players' balances and the rules' counters are the reset ones");

    const after = login('usd');
    await post(`${origin}/callback`, after);
    await row(page, after.transaction_id).waitFor();
    t.equal(await rows(page).count(), 1, 'a callback after the reset is listed');

    t.equal((await fetch(`${origin}/admin/journal`, { method: 'DELETE' })).status, 204);
    await page.getByText('No callbacks yet').waitFor();
    t.equal(await rows(page).count(), 0, 'DELETE /admin/journal empties the list');

    const before = login('usd');
    await post(`${origin}/callback`, before);
    await row(page, before.transaction_id).waitFor();
    await page.getByLabel('Bundled scenario').selectOption('flaky');
    await page.getByLabel('reset players and history').check();
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.locator('.scenario-name', { hasText: 'flaky' }).waitFor();
    await page.getByText('No callbacks yet').waitFor();
    const next = login('player-1');
    await post(`${origin}/callback`, next);
    await row(page, next.transaction_id).waitFor();
    t.equal(await row(page, before.transaction_id).count(), 0, 'Switch with reset: no row from before it stays');
    clean(t, d);
  });

  t.test('a stream refused (LISTENERS_FULL): the reason shown, the journal listed anyway', async (t) => {
    const { app } = await buildTestApp({}, { limits: { maxListeners: 1 } });
    t.teardown(() => app.close());
    const origin = await listen(app);
    const earlier = login('usd');
    await post(`${origin}/callback`, earlier);
    const abort = new AbortController();
    t.teardown(() => abort.abort());
    const other = await fetch(`${origin}/admin/events`, { signal: abort.signal });
    t.equal(other.status, 200, 'another listener holds the only slot');

    const d = await openDashboard(t, origin, `${origin}/ui`, { allowStatus: /503/ });
    const { page } = d;
    await row(page, earlier.transaction_id).waitFor({ timeout: WAIT });
    t.pass('the callbacks panel lists the journal');
    const why = page.locator('.stream-why');
    await why.waitFor();
    t.match(
      await why.innerText(),
      /LISTENERS_FULL.*1 listener already follows GET \/admin\/events.*--max-listeners/s,
      "the server's reason",
    );

    abort.abort();
    await live(page);
    t.equal(await why.count(), 0, 'gone once the stream is up');
    clean(t, d);
  });

  t.test('paused: a callback already listed is not counted as new when the stream reconnects', async (t) => {
    const { app } = await buildTestApp({}, { adminToken: 'tok-123' });
    t.teardown(() => app.close());
    const origin = await listen(app);
    const d = await openDashboard(t, origin, `${origin}/ui`, { allowStatus: /401/ });
    const { page } = d;
    const useToken = async () => {
      await page.getByLabel('Token', { exact: true }).fill('tok-123');
      await page.getByRole('button', { name: 'Use token' }).click();
    };
    await useToken();
    await live(page);
    const sent = [login('usd'), login('player-1')];
    for (const body of sent) await post(`${origin}/callback`, body);
    for (const body of sent) await row(page, body.transaction_id).waitFor();

    await page.getByRole('button', { name: 'Pause' }).click();
    // The token-less reconnect is refused first (its 401 read before the token is given again: a late
    // 401 would be taken for the new token's refusal).
    const refused = page.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/admin/') && r.status() === 401);
    await page.getByRole('button', { name: 'Forget token' }).click();
    await refused;
    // The stream is up again (and the journal read again as it does each time) with the token.
    const reread = page.waitForResponse((r) => new URL(r.url()).pathname === '/admin/journal' && r.status() === 200);
    await useToken();
    await reread;
    const held = login('usd');
    await post(`${origin}/callback`, held);
    await page.getByText('1 new (paused)').waitFor();
    t.equal(await page.locator('.callbacks .count').innerText(), '2 shown, 1 new (paused)', 'only the one sent while paused is new');
    clean(t, d);
  });
}
