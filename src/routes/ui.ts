import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifySchema } from 'fastify';
import { ROOT, SCENARIOS_DIR } from '../kernel/paths.js';
import { adminSchema } from './admin-docs.js';
import { eventRoutes, type EventRouteOptions } from './events.js';

/** Where `npm run build:ui` writes the dashboard (shipped in the package). */
export const UI_DIR = join(ROOT, 'dist/ui');

/** Only this server: the page loads nothing from anywhere else (offline, CI boxes). */
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** GET /ui (the dashboard; GET / redirects there) and its assets under /ui/. */
export const uiRoutes: FastifyPluginAsync = async (app) => {
  const hide = { schema: { hide: true } };
  app.get('/', hide, async (_request, reply) => reply.redirect('/ui'));
  // The page has one address, so its headers (CSP) are set in one place: /ui/ and /ui/index.html
  // lead there rather than being served as plain static files.
  for (const alias of ['/ui/', '/ui/index.html']) app.get(alias, hide, async (_request, reply) => reply.redirect('/ui'));
  const index = join(UI_DIR, 'index.html');
  if (!existsSync(index)) {
    app.get('/ui', hide, async (_request, reply) =>
      reply.code(503).type('text/plain').send(`wallet-sim: the dashboard is not built (${index} is missing): run npm run build`),
    );
    return;
  }
  const html = readFileSync(index, 'utf8');
  app.get('/ui', hide, async (_request, reply) => page(reply, html));
  await app.register(fastifyStatic, { root: UI_DIR, prefix: '/ui/', decorateReply: false, index: false, schemaHide: true });
};

const page = (reply: FastifyReply, html: string) =>
  reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).header('cache-control', 'no-cache').send(html);

/**
 * Hosted mode: a tenant's dashboard at /t/:id/ui, the same page for every id (it holds no data,
 * so it tells no tenant from another: it asks for the token and calls /t/:id/admin/… with it),
 * and its assets under /ui/.
 */
export const tenantUiRoutes: FastifyPluginAsync = async (app) => {
  const hide = { schema: { hide: true } };
  // As /ui/ leads to /ui: the page has one address, whatever a hand-typed URL ends with.
  for (const alias of ['/t/:id/ui/', '/t/:id/ui/index.html'])
    app.get<{ Params: { id: string } }>(alias, hide, async (request, reply) =>
      reply.redirect(`/t/${encodeURIComponent(request.params.id)}/ui`),
    );
  const index = join(UI_DIR, 'index.html');
  if (!existsSync(index)) {
    app.get('/t/:id/ui', hide, async (_request, reply) =>
      reply.code(503).type('text/plain').send(`wallet-sim: the dashboard is not built (${index} is missing): run npm run build`),
    );
    return;
  }
  const html = readFileSync(index, 'utf8');
  app.get('/t/:id/ui', hide, async (_request, reply) => page(reply, html));
  await app.register(fastifyStatic, { root: UI_DIR, prefix: '/ui/', decorateReply: false, index: false, schemaHide: true });
};

/** A scenario bundled in scenarios/, as GET /admin/scenarios lists it. */
export interface BundledScenario {
  name: string;
  file: string;
  description?: string;
  document: Record<string, unknown>;
}

export function bundledScenarios(): BundledScenario[] {
  return readdirSync(SCENARIOS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const document = JSON.parse(readFileSync(join(SCENARIOS_DIR, file), 'utf8')) as Record<string, unknown>;
      const name = typeof document.name === 'string' ? document.name : file.replace(/\.json$/, '');
      return {
        name,
        file: `scenarios/${file}`,
        description: typeof document.description === 'string' ? document.description : undefined,
        document,
      };
    });
}

/**
 * The admin routes the dashboard adds: the event stream and the bundled scenarios. Registered
 * inside the admin plugin, so --admin-token guards them like the rest of /admin.
 */
export const uiAdminRoutes: FastifyPluginAsync<EventRouteOptions> = async (app, options) => {
  await app.register(eventRoutes, options);
  const schema = adminSchema(
    'GET',
    { locked: options.security !== undefined },
    {
      operationId: 'bundledScenarios',
      summary: 'The scenarios bundled with wallet-sim (for PUT /admin/scenario)',
      description:
        "Each file of the package's scenarios/ folder: its name, description and whole document, ready to send to `PUT /admin/scenario`.",
      response: {
        200: {
          description: 'The bundled scenarios, by file name.',
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'file', 'document'],
            properties: {
              name: { type: 'string' },
              file: { type: 'string' },
              description: { type: 'string' },
              document: { type: 'object', additionalProperties: true, description: 'The scenario document (schema Scenario).' },
            },
          },
        },
      },
    },
  ) as FastifySchema;
  app.get('/scenarios', { schema }, async () => bundledScenarios());
};
