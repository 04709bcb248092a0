// The probe page's verdict in Debian's chromium, against the zoo wallet with one defect (a
// settlement credits the win/loss only): the verdict counts the wallet checks as the signed report
// does, the failing one is listed with what went wrong and its fix, a skipped check says why, and
// the signed report's hint names the tenant to check it against. A stop is said in the form's terms,
// on the verdict line and on the check it stopped at (no fix: the form is at fault, not the wallet).
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';
import t from 'tap';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { parseEnvelope, verifyEnvelope } from '../../src/evidence/verify-evidence.js';
import { startZooWallet } from '../wallets/zoo-wallet.js';
import { listen } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../helpers/chromium.js';
import { buildHostedTestApp, createTenant } from '../helpers/hosted.js';

t.setTimeout(120_000);
const WAIT = 30_000;

const missing = chromiumMissing('the probe verdict browser test is');
if (missing) {
  t.test('probe verdict in a browser', { skip: missing }, async () => {});
} else {
  let browser: Browser | undefined;
  t.teardown(async () => {
    await browser?.close();
  });

  t.test('a wallet failing a wallet check: FAIL counting it, its message and fix, a skip with its reason', async (t) => {
    const pair = generateKeyPairSync('ed25519');
    const [zoo, host, launched] = await Promise.all([
      startZooWallet({ defect: 'settle-winloss-only' }),
      buildHostedTestApp({ allowPrivateTargets: true, signer: loadSigner(pair.privateKey) }),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 }),
    ]);
    browser = launched;
    t.teardown(() => zoo.close());
    t.teardown(() => host.app.close());
    const origin = await listen(host.app);
    const tenant = await createTenant(host.app, { name: 'Acme' });
    const context = await launched.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    t.teardown(() => context.close().catch(() => undefined));
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await page.goto(`${origin}/t/${tenant.id}/ui#probe`);
    await page.getByLabel('Token', { exact: true }).fill(tenant.token);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByLabel('Wallet callback URL').fill(zoo.url);
    await page.getByLabel('Api-Id').fill('zoo');
    await page.getByLabel('Api-Key').fill('zoo-key');
    await page.getByLabel('Player (user_id)').fill('player-1');
    await page.getByLabel('Currency').fill('USD');
    await page.getByRole('button', { name: 'Start probe' }).click();

    const verdict = page.locator('.verdict');
    await verdict.getByText(/^FAIL: 1 of \d+ checks failed \(WALLET_BALANCE_EXACT\); \d+ passed/).waitFor();
    const said = (await verdict.textContent())!;
    const failing = page.locator('tr[data-why="WALLET_BALANCE_EXACT"]');
    t.match(
      await failing.textContent(),
      /the balance went from .*Fix: Compute balances in exact decimals/s,
      'the failing check: what and the fix',
    );
    t.equal(await page.locator('tr[data-check="WALLET_BALANCE_EXACT"] .status-fail').count(), 1);
    t.match(
      await page.locator('tr[data-why="concurrent-bets"]').textContent(),
      /WALLET_BALANCE_EXACT/,
      'a skipped check says why it was not judged',
    );

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Signed report' }).click()]);
    const { envelope } = JSON.parse(await readFile((await download.path())!, 'utf8')) as { envelope: object };
    const { statement } = verifyEnvelope(parseEnvelope(JSON.stringify(envelope), 'envelope'), pair.publicKey, 'pub.pem');
    t.same(statement.predicate.failedTests, ['WALLET_BALANCE_EXACT']);
    t.match(said, `; ${statement.predicate.passedTests!.length} passed`, 'the page counts the passed checks as the signed report does');

    const hint = page.locator('.probe-reports code').filter({ hasText: 'verify-report' });
    t.equal(
      await hint.textContent(),
      `wallet-sim verify-report ${download.suggestedFilename()} --public-key <the host's public key> --tenant ${tenant.id}`,
      'the hint checks the report against this tenant',
    );

    // Refused credentials: NOT CHECKED, said with the form's labels (not the API's field names).
    await page.getByLabel('Api-Key').fill('not-the-key');
    await page.getByRole('button', { name: 'Start probe' }).click();
    await verdict
      .getByText('NOT CHECKED: the probe could not check the wallet: credentials refused (R2): check the Api-Id and Api-Key.')
      .waitFor();
    t.notMatch(await page.locator('.probe-run').textContent(), /api_id|api_key|--api/, 'no API or CLI name on the page');
    // The check it stopped at says the stop's reason, and blames no wallet.
    t.equal(
      await page.locator('tr[data-why="login"]').textContent(),
      'credentials refused (R2): check the Api-Id and Api-Key',
      "the stop's reason, in the form's terms",
    );
    t.equal(await page.locator('.probe-run .check-fix').count(), 0, 'no fix for the wallet');

    // A phone's width: the page does not scroll sideways (long URLs and tables scroll in their panels).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('tr[data-run]').nth(1).waitFor();
    const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
    t.ok(widths.doc <= widths.view, `no sideways scroll at 390 px (document ${widths.doc} px, window ${widths.view} px)`);
    t.same(errors, [], 'no page errors');
  });
}
