// The dashboard on a laptop (issue 22, item 5): at 1280 and 1024 px wide nothing scrolls sideways,
// the callbacks' reason column is in view and the add-player row stays inside its panel — with the
// widest content the certification scenario produces (a long player name, rules, flags, findings).
import { type Browser, chromium } from 'playwright-core';
import t from 'tap';
import { loadScenarioFile } from '../src/core/scenario/scenario.js';
import { DEFAULT_SCENARIO } from '../src/kernel/paths.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from './helpers/chromium.js';
import { bet, buildTestApp, HEADERS, listen, login, post } from './helpers/app.js';

t.setTimeout(240_000);
const WAIT = 20_000;
const missing = chromiumMissing('the dashboard width tests are');
const certification = loadScenarioFile(DEFAULT_SCENARIO.replace(/default\.json$/, 'certification.json')).source;

let browser: Browser | undefined;
t.teardown(async () => {
  await browser?.close();
});

for (const width of [1280, 1024]) {
  t.test(
    `${width} px wide: no sideways scrolling, the reason column in view, the add-player row inside its panel`,
    { skip: missing },
    async (t) => {
      const { app } = await buildTestApp(certification);
      const origin = await listen(app);
      t.teardown(() => app.close());
      const callback = `${origin}/callback`;
      const usd = (user: string, game: string) => bet(user, game, [['1', 'P', 7]], { currency: 'USD' });
      const sent = [
        login('cert-locked'), // R2 by a rule
        login('a-very-long-player-name-from-a-provider-0123456789'),
        usd('cert-r4', 'BAC07-20251122-0415'), // R4 by a rule
        usd('a-very-long-player-name-from-a-provider-0123456789', 'BAC07-20251122-0416'),
        { ...usd('cert-r1-settlement', 'BAC07-20251122-0417'), timestamp: Math.floor(Date.now() / 1000) - 4000 }, // a finding
      ];
      const replay = usd('cert-lost-settlement', 'BAC07-20251122-0418');
      for (const body of [...sent, replay, replay]) await post(callback, body, HEADERS);

      browser ??= await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      t.teardown(() => context.close());
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT);
      await page.goto(`${origin}/ui`);
      // Every callback listed (the widest content in), then the add-player row open.
      await page.waitForFunction((n) => document.querySelectorAll('.entries tbody tr[data-id]').length === n, sent.length + 2);
      await page.getByRole('button', { name: 'Add player' }).click();
      await page.locator('tr.editing input[name="user_id"]').waitFor();

      const m = await page.evaluate(() => {
        const box = (s: string) => document.querySelector(s)!.getBoundingClientRect();
        const wrap = document.querySelector('.table-wrap')!;
        const players = document.querySelector('section.players')!;
        return {
          page: document.scrollingElement!.scrollWidth,
          inner: window.innerWidth,
          table: wrap.scrollWidth,
          wrap: wrap.clientWidth,
          reasonRight: box('.entries thead th:last-child').right,
          wrapRight: box('.table-wrap').right,
          addRowRight: box('tr.editing').right,
          playersRight: box('section.players').right,
          players: players.scrollWidth - players.clientWidth,
        };
      });
      t.ok(m.page <= m.inner, `the page is ${m.page} px wide in a ${m.inner} px window`);
      t.ok(m.table <= m.wrap, `the callbacks table (${m.table} px) fits its ${m.wrap} px box`);
      t.ok(m.reasonRight <= m.wrapRight + 0.5, `the reason column ends at ${m.reasonRight}, inside the box (${m.wrapRight})`);
      t.ok(m.addRowRight <= m.playersRight + 0.5, `the add-player row ends at ${m.addRowRight}, inside its panel (${m.playersRight})`);
      t.equal(m.players, 0, 'the players panel does not scroll sideways');
    },
  );
}
