// The probe page of a hosted tenant's dashboard (/t/:id/ui#probe) in Debian's chromium: the
// operator fills in its wallet (a real wallet-sim on 127.0.0.1, the host started with
// allowPrivateTargets), starts a run, watches the checks arrive from the run's event stream (read
// with fetch and the Bearer token), sees the verdict (the target's warning named in it, its check
// marked warn with the warning below) and saves the signed report, which names the tenant, whose
// name (a would-be script) is shown as text, and warns of the same check. A refused start is said in words.
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';
import t from 'tap';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { checkReport, parseEnvelope, subjectOf, verifyEnvelope } from '../../src/evidence/verify-evidence.js';
import { buildTestApp, listen } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../helpers/chromium.js';
import { buildHostedTestApp, createTenant, type Created } from '../helpers/hosted.js';

t.setTimeout(120_000);
const WAIT = 30_000;
const HOSTILE_NAME = '<img src=x onerror=alert(1)>';

/** Opens the tenant's dashboard, gives its token, and goes to the probe page (by its link, or straight to #probe). */
async function openProbePage(page: Page, origin: string, tenant: Created, how: 'link' | 'address'): Promise<void> {
  await page.goto(`${origin}/t/${tenant.id}/ui${how === 'address' ? '#probe' : ''}`);
  await page.getByRole('dialog', { name: 'Tenant token' }).waitFor();
  await page.getByLabel('Token', { exact: true }).fill(tenant.token);
  await page.getByRole('button', { name: 'Use token' }).click();
  if (how === 'link') await page.getByRole('link', { name: 'Probe your wallet' }).click();
  await page.getByRole('heading', { name: 'Probe your wallet' }).waitFor();
}

async function fill(page: Page, url: string): Promise<void> {
  await page.getByLabel('Wallet callback URL').fill(url);
  await page.getByLabel('Api-Id').fill('sandbox');
  await page.getByLabel('Api-Key').fill('sandbox-key');
  await page.getByLabel('Player (user_id)').fill('usd');
  await page.getByLabel('Currency').fill('USD');
}

const missing = chromiumMissing('the probe page browser test is');
if (missing) {
  t.test('probe page in a browser', { skip: missing }, async () => {});
} else {
  let browser: Browser | undefined;
  t.teardown(async () => {
    await browser?.close();
  });

  t.test('the probe page: a run against a real wallet, live checks, the verdict, the signed report naming the tenant', async (t) => {
    const pair = generateKeyPairSync('ed25519');
    // Every server at once: the wallet probed, a host that may probe it (private targets allowed, one
    // run an hour), a host that may not, and a single-tenant wallet-sim.
    const [target, host, strict, single, launched] = await Promise.all([
      buildTestApp(),
      buildHostedTestApp({ allowPrivateTargets: true, signer: loadSigner(pair.privateKey), probeRunsPerHour: 1 }),
      buildHostedTestApp(),
      buildTestApp(),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 }),
    ]);
    browser = launched;
    for (const app of [target.app, host.app, strict.app, single.app]) t.teardown(() => app.close());
    const [walletBase, origin, strictOrigin, singleOrigin] = await Promise.all([
      listen(target.app),
      listen(host.app),
      listen(strict.app),
      listen(single.app),
    ]);
    const walletUrl = `${walletBase}/callback`;
    const tenant = await createTenant(host.app, { name: HOSTILE_NAME });
    const context = await launched.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    t.teardown(() => context.close().catch(() => undefined));
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    const requests: Request[] = [];
    const errors: string[] = [];
    const dialogs: string[] = [];
    page.on('request', (r) => requests.push(r));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource.*(400|401|404|429)/.test(m.text())) errors.push(m.text());
    });

    await openProbePage(page, origin, tenant, 'link');
    await page.getByText('No runs yet.').waitFor();
    await fill(page, walletUrl);
    const started = Date.now();
    await page.getByRole('button', { name: 'Start probe' }).click();
    const verdict = page.locator('.verdict');
    // The target (a wallet-sim's default scenario) creates the players it does not know: a warning, named as the CLI names it.
    await verdict
      .getByText(/^PASS \(1 warning: unknown-player\): the wallet passed every check \(\d+ passed, 1 with a warning\)\.$/)
      .waitFor();
    const ms = Date.now() - started;
    t.ok((await page.locator('tr[data-check]').count()) >= 20, 'every check listed');
    t.equal(await page.locator('tr[data-check="duplicate-replay"] .status-pass').count(), 1);
    t.equal(await page.locator('tr[data-check="unknown-player"] .status').textContent(), 'warn', 'the warned check is marked warn');
    t.match(
      await page.locator('tr[data-why="unknown-player"] .check-message').textContent(),
      /^the wallet answered R0 to a login of usd-unknown-.*: it creates unknown players\. A sandbox may/,
      'with its warning below it',
    );
    t.equal(await verdict.getAttribute('role'), 'status', 'the verdict is read out');
    const run = (await page.locator('#probe-run-title code').textContent())!;
    await page.locator(`tr[data-run="${run}"]`, { hasText: 'PASS' }).waitFor();
    t.pass(`the run, from the start to the verdict on the page: ${ms} ms`);

    const events = requests.filter((r) => r.url().endsWith(`/t/${tenant.id}/probe/${run}/events`));
    t.equal(events.length, 1, "the checks came from the run's event stream");
    t.equal(events[0]!.headers().authorization, `Bearer ${tenant.token}`, 'read with the Bearer token');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Signed report' }).click()]);
    t.equal(download.suggestedFilename(), `probe-${run}.signed.json`);
    const { envelope, report } = JSON.parse(await readFile((await download.path())!, 'utf8')) as { envelope: object; report: string };
    const { statement } = verifyEnvelope(parseEnvelope(JSON.stringify(envelope), 'envelope'), pair.publicKey, 'pub.pem');
    checkReport(statement, Buffer.from(report), 'report');
    t.equal(statement.predicate.result, 'WARNED');
    t.same(statement.predicate.warnedTests, ['unknown-player'], "the signed report's warned checks, as the page's");
    t.notOk(statement.predicate.passedTests!.includes('unknown-player'));
    t.match(subjectOf(statement)!.annotations, { tenant_id: tenant.id, tenant_name: HOSTILE_NAME, probe_target: walletUrl });
    t.notOk(report.includes('sandbox-key'), 'the saved report masks the key');

    // The tenant's name is shown as the text it is: no element made of it, no script run.
    const shownName = page.locator('.tenant-name');
    await shownName.waitFor();
    t.equal(await shownName.textContent(), HOSTILE_NAME);
    t.equal(await page.locator('img').count(), 0, 'no <img> made of the name');
    const [html] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'HTML' }).click()]);
    t.match(await readFile((await html.path())!, 'utf8'), /^<!doctype html>/i, 'the HTML report saved');

    // A second run: this host allows one an hour. Said in words, with when to try again.
    await page.getByRole('button', { name: 'Start probe' }).click();
    await page
      .getByRole('alert')
      .getByText(/as many probe runs as this host allows in an hour\. Try again in \d+ min/)
      .waitFor();
    t.pass('429 said in words, with the time to try again');

    // Another host, which probes public addresses only: a loopback target is refused, naming its class.
    const strictTenant = await createTenant(strict.app, { name: 'Acme' });
    await openProbePage(page, strictOrigin, strictTenant, 'address');
    await fill(page, 'http://127.0.0.1:9/callback');
    await page.getByRole('button', { name: 'Start probe' }).click();
    await page.getByRole('alert').getByText('The host will not probe this URL: 127.0.0.1 is a loopback address.').waitFor();
    t.equal(await page.getByLabel('Wallet callback URL').getAttribute('aria-invalid'), 'true', 'the URL field is marked');
    t.equal(await page.locator('tr[data-run]').count(), 0, 'no run started');

    // A single-tenant wallet-sim has no probe routes: no link to the page, and #probe is the callbacks page.
    await page.goto(`${singleOrigin}/ui#probe`);
    await page.getByRole('heading', { name: 'Players' }).waitFor();
    t.equal(await page.getByRole('link', { name: 'Probe your wallet' }).count(), 0, 'no link to a probe page');
    t.equal(await page.getByRole('heading', { name: 'Probe your wallet' }).count(), 0, '#probe shows the callbacks page');
    t.notOk(
      requests.some((r) => r.url().includes(tenant.token)),
      'the token never travels in a URL',
    );
    t.same(dialogs, [], 'no script of the name ran');
    t.same(errors, [], 'no page errors');
  });
}
