// No page of wallet-sim can be framed (issue 21, item 4): a framing page could click "Try it out"
// on POST /admin/reset for the user. Every page route, the dashboard's static files included.
import { readdirSync } from 'node:fs';
import t from 'tap';
import { UI_DIR } from '../src/routes/ui.js';
import { buildTestApp } from './helpers/app.js';

const SWAGGER_STATIC = ['index.css', 'swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'logo.svg'];

t.test('every page and asset the server serves says X-Frame-Options: DENY and frame-ancestors none', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const urls = [
    '/',
    '/docs',
    '/docs/',
    '/docs/static/index.html',
    '/docs/static/swagger-initializer.js',
    '/docs/json',
    '/docs/yaml',
    '/docs/static/theme/wallet-sim.css',
    ...SWAGGER_STATIC.map((f) => `/docs/static/${f}`),
    '/ui',
    ...readdirSync(UI_DIR).map((f) => `/ui/${f}`),
  ];
  t.ok(urls.includes('/ui/index.html'), 'the dashboard page under its file name too');
  for (const url of urls) {
    const res = await app.inject({ url });
    t.ok(res.statusCode === 200 || res.statusCode === 302, `${url} answers (${res.statusCode})`);
    t.equal(res.headers['x-frame-options'], 'DENY', `${url}: X-Frame-Options`);
    t.match(String(res.headers['content-security-policy']), /(^|;)\s*frame-ancestors 'none'/, `${url}: frame-ancestors 'none'`);
  }
  const page = await app.inject({ url: '/ui' });
  t.match(page.headers['content-security-policy'], /^default-src 'self';/, "the dashboard's own policy is kept");
  t.equal((String(page.headers['content-security-policy']).match(/frame-ancestors/g) ?? []).length, 1, 'with one frame-ancestors');
});
