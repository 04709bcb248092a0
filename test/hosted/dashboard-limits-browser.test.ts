// A hosted tenant's dashboard where the host's rules show: a stream over the tenant's listener limit
// says why (the tenant's own route, LISTENERS_FULL) and the callbacks are listed anyway; a scenario
// whose credentials were ignored says so; /t/<id>/ui/ leads to the page as /ui/ does.
import t from 'tap';
import { chromiumMissing } from '../helpers/chromium.js';
import { closeBrowser, clean, openDashboard } from '../helpers/dashboard.js';
import { bearer, buildHostedTestApp, callbackHeaders, createTenant, loginOf } from '../helpers/hosted.js';

t.setTimeout(180_000);

const missing = chromiumMissing('the hosted dashboard browser test is');
if (missing) {
  t.test('hosted dashboard limits in a browser', { skip: missing }, async () => {});
} else {
  t.teardown(closeBrowser);

  t.test("over the tenant's listener limit: the reason, the journal; the API's note on a switch", async (t) => {
    const { app } = await buildHostedTestApp({ maxListenersEach: 1 });
    const a = await createTenant(app, { name: 'Acme' });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    t.teardown(() => app.close());
    const earlier = loginOf('alice');
    await fetch(`${origin}/t/${a.id}/callback`, { method: 'POST', headers: callbackHeaders(a), body: JSON.stringify(earlier) });
    const abort = new AbortController();
    t.teardown(() => abort.abort());
    const other = await fetch(`${origin}/t/${a.id}/admin/events`, { headers: bearer(a.token), signal: abort.signal });
    t.equal(other.status, 200, "another tab holds the tenant's only stream");

    const d = await openDashboard(t, origin, `${origin}/t/${a.id}/ui/`, { allowStatus: /503/ });
    const { page } = d;
    t.equal(new URL(page.url()).pathname, `/t/${a.id}/ui`, '/t/<id>/ui/ leads to /t/<id>/ui');
    await page.getByLabel('Token', { exact: true }).fill(a.token);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.locator('tr[data-id]', { hasText: earlier.transaction_id }).waitFor();
    t.pass('the callbacks are listed from the journal');
    const why = page.locator('.stream-why');
    await why.waitFor();
    t.match(
      await why.innerText(),
      new RegExp(`LISTENERS_FULL: 1 listener of this tenant already follows GET /t/${a.id}/admin/events.*--tenant-listeners`, 's'),
      "the server's reason, naming the tenant's route",
    );

    await page.getByLabel('Bundled scenario').selectOption('lost-replies');
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.getByText('"lost-replies" is active').waitFor();
    t.match(
      await page.locator('.api-note').innerText(),
      /the scenario's credentials were ignored: a tenant's Api-Id and Api-Key are fixed/,
    );
    clean(t, d);
  });
}
