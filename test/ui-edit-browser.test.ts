// The dashboard's keyboard and what it sends: the callbacks list is one Tab stop (arrow keys
// within) and closing a callback's details gives the focus back to its row; a balance goes to the
// server as typed, digit for digit; a pasted scenario goes as written, so the server's own help shows.
import type { Page, Request } from 'playwright-core';
import t from 'tap';
import { chromiumMissing } from './helpers/chromium.js';
import { closeBrowser, clean, openDashboard } from './helpers/dashboard.js';
import { balanceOf, buildTestApp, listen, login, post } from './helpers/app.js';

t.setTimeout(240_000);

const live = (page: Page) => page.locator('.live-live').waitFor();
/** The journal id of the focused element when it is a callback's row. */
const focusedRow = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id);

const missing = chromiumMissing('the dashboard browser tests are');
if (missing) {
  t.test('dashboard keyboard and edits', { skip: missing }, async () => {});
} else {
  t.teardown(closeBrowser);

  t.test('the list is one Tab stop, arrows move within it; Escape gives the focus back to the row', async (t) => {
    const { app } = await buildTestApp();
    t.teardown(() => app.close());
    const origin = await listen(app);
    const d = await openDashboard(t, origin, `${origin}/ui`);
    const { page } = d;
    await live(page);
    for (let i = 0; i < 6; i++) await post(`${origin}/callback`, login('usd'));
    await page.locator('tr[data-id]').nth(5).waitFor();
    const ids = await page.locator('tr[data-id]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id));
    t.equal(await page.locator('tr[data-id][tabindex="0"]').count(), 1, 'one row is a Tab stop, not six');

    await page.locator('tr[data-id][tabindex="0"]').focus();
    t.equal(await focusedRow(page), ids[0], 'the newest holds the stop');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    t.equal(await focusedRow(page), ids[2], 'ArrowDown moves to the row below');
    await page.keyboard.press('End');
    t.equal(await focusedRow(page), ids[5], 'End: the last row');
    await page.keyboard.press('ArrowUp');
    t.equal(await focusedRow(page), ids[4], 'ArrowUp: the row above');

    await page.keyboard.press('Enter');
    await page.locator('section.detail').waitFor();
    t.match(await page.locator('#detail-title').innerText(), new RegExp(`^#${ids[4]} login`), 'Enter opens that row');
    await page.keyboard.press('Escape');
    await page.locator('section.detail').waitFor({ state: 'detached' });
    t.equal(await focusedRow(page), ids[4], 'Escape: the focus is back on the row, not on the page');
    t.equal(await page.locator('tr[data-id][tabindex="0"]').getAttribute('data-id'), ids[4], 'which now holds the Tab stop');

    await page.keyboard.press('Tab');
    t.equal(await focusedRow(page), undefined, 'Tab leaves the list at once');
    await page.keyboard.press('Shift+Tab');
    t.equal(await focusedRow(page), ids[4], 'Shift+Tab comes back to the same row');

    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Close the details' }).click();
    t.equal(await focusedRow(page), ids[4], 'Close too gives the focus back to the row');
    clean(t, d);
  });

  t.test('a balance is sent as typed; hex and exponents are refused in the page', async (t) => {
    const { app, sim } = await buildTestApp();
    t.teardown(() => app.close());
    const origin = await listen(app);
    const d = await openDashboard(t, origin, `${origin}/ui`, { allowStatus: /400/ });
    const { page } = d;
    const puts: Request[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT') puts.push(r);
    });
    const usd = page.locator('tr[data-player="usd"]');
    await usd.getByRole('button', { name: 'Edit usd' }).click();
    const field = page.getByLabel('Balance of usd');
    const error = usd.locator('.field-error');

    for (const typed of ['0x10', '1e2', '1,000.50', '007']) {
      await field.fill(typed);
      await page.getByRole('button', { name: 'Save' }).click();
      t.match(await error.innerText(), /plain decimal, e\.g\. 1234\.56/, `${typed} is refused in the page`);
    }
    t.equal(puts.length, 0, 'none of them was sent');
    t.equal(balanceOf(sim, 'usd'), '100', 'nor changed anything');

    for (const [typed, judged] of [
      ['12345678901234567.89', 'is not below'],
      ['0.123456789012345678', 'significant digits'],
    ] as const) {
      const sent = page.waitForRequest((r) => r.method() === 'PUT');
      await field.fill(typed);
      await page.getByRole('button', { name: 'Save' }).click();
      t.equal((await sent).postData(), `{"balance":${typed},"currency":"USD"}`, `${typed}: its digits as typed`);
      await usd.locator('.field-error', { hasText: judged }).waitFor();
      t.pass(`${typed}: the server's judgement shown (${judged})`);
    }
    t.equal(balanceOf(sim, 'usd'), '100');

    await field.fill('123.45');
    await page.getByRole('button', { name: 'Save' }).click();
    await usd.getByRole('button', { name: 'Edit usd' }).waitFor();
    t.equal(balanceOf(sim, 'usd'), '123.45', 'a plain decimal is saved');
    clean(t, d);
  });

  t.test("a pasted scenario goes as written: the server's help for YAML, its bound for 1e400", async (t) => {
    const { app, sim } = await buildTestApp();
    t.teardown(() => app.close());
    const origin = await listen(app);
    const d = await openDashboard(t, origin, `${origin}/ui`, { allowStatus: /400/ });
    const { page } = d;
    await page.getByText('Paste or upload a scenario').click();
    const problem = page.locator('.problems li').first();

    await page.getByLabel('Scenario JSON').fill('name: yaml\nrules: []\n');
    await page.getByRole('button', { name: 'Apply' }).click();
    await problem.waitFor();
    t.match(await problem.innerText(), /not valid JSON: .*line 1, column \d+.*no YAML/s, "the server's line, column and hint");

    const big = JSON.stringify({ ...sim.scenario.source, players: [{ user_id: 'rich', balance: '@', currency: 'KRW' }] }).replace(
      '"@"',
      '1e400',
    );
    await page.getByLabel('Scenario JSON').fill(big);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.problems li', { hasText: '/players/0/balance' }).waitFor();
    const text = await page.locator('.problems').innerText();
    t.match(text, /is not below .* KRW/, "the server's bound");
    t.notMatch(text, /null/, 'not a null the browser made of it');
    t.equal(sim.scenario.source.name, 'test', 'nothing changed');
    clean(t, d);
  });
}
