import { HEADER_TEXT } from '../kernel/documents.js';
import { errorBody, errorResponse } from './docs.js';

/** The OpenAPI side of the probe-as-a-service routes (src/routes/probe-runs.ts). */

export const VERDICTS: ('PASS' | 'FAIL' | 'NOT_CHECKED')[] = ['PASS', 'FAIL', 'NOT_CHECKED'];

const RUN_STATE = {
  type: 'object',
  properties: {
    run: { type: 'string' },
    state: { type: 'string', enum: ['running', 'done', 'failed'] },
    started_at: { type: 'string' },
    ended_at: { type: 'string' },
    target: { type: 'object', properties: { url: { type: 'string' }, user: { type: 'string' }, currency: { type: 'string' } } },
    verdict: { type: 'string', enum: VERDICTS },
    message: { type: 'string' },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'status', 'side'],
        properties: {
          name: { type: 'string', description: "A probe check's name, or a wallet check's id (WALLET_…)." },
          status: {
            type: 'string',
            enum: ['pass', 'fail', 'skip', 'warn'],
            description:
              'As the signed report counts it: fail (a failed test), warn (a probe check passed with a warning, a wallet check failed as a warning, or one awaiting answers), pass, skip (in no list: not judged, or not exercised).',
          },
          side: {
            type: 'string',
            enum: ['probe', 'wallet'],
            description:
              "probe: the probe's checks, listed as each finishes; wallet: the wallet checks over every exchange, listed when the run ends.",
          },
          duration_ms: { type: 'integer', description: "The probe's checks only." },
          message: {
            type: 'string',
            description:
              'What went wrong (fail, warn: one line each, the first three), why the probe stopped (the check it stopped at: the run is NOT_CHECKED), or why it was not judged (skip).',
          },
          fix: { type: 'string', description: 'What to change in the wallet (fail, a wallet check warned); none where the probe stopped.' },
        },
      },
    },
  },
} as const;

const runParams = { type: 'object', properties: { id: { type: 'string' }, run: { type: 'string' } }, required: ['id', 'run'] } as const;
const security = [{ bearer: [] }];
const AUTH = {
  401: errorResponse("No token, or one nobody holds (UNAUTHORIZED): the tenant's routes want Authorization: Bearer <token>."),
  403: errorResponse("Another tenant's token (FORBIDDEN)."),
};

export const START_SCHEMA = {
  tags: ['probe'],
  security,
  operationId: 'probeStart',
  summary: "Start a probe run against the tenant's wallet (the provider's side, played from the host)",
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'api_id', 'api_key', 'user'],
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 2048, description: "The wallet's callback URL (http or https)." },
      api_id: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        pattern: HEADER_TEXT,
        description: 'Sent as the Api-Id header: printable ASCII.',
      },
      api_key: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        pattern: HEADER_TEXT,
        description: 'Sent as the Api-Key header: printable ASCII.',
      },
      user: { type: 'string', minLength: 1, maxLength: 256, description: 'The player the probe plays (at least 4 units of balance).' },
      currency: { type: 'string', minLength: 1, maxLength: 16, default: 'USD' },
      decimals: { type: 'integer', minimum: 0, maximum: 18, description: 'Fraction digits (default: ISO 4217).' },
    },
  },
  response: {
    202: {
      description: 'The run started: follow it at /t/<id>/probe/<run>(/events).',
      type: 'object',
      properties: { run: { type: 'string' } },
    },
    400: errorResponse(
      'The body is invalid (BAD_REQUEST; an api_id or api_key that is not printable ASCII, such as a pasted "…", names the character), or the URL is or resolves to a loopback, unspecified, private, shared or link-local (metadata) address, IPv4-mapped forms included (PROBE_TARGET_REFUSED, naming the class).',
      [errorBody('PROBE_TARGET_REFUSED', '127.0.0.1 is a loopback address')],
    ),
    ...AUTH,
    409: errorResponse('A run of this tenant is still going (PROBE_RUNNING).', [errorBody('PROBE_RUNNING', 'Xq3…')]),
    429: errorResponse('The run quota (20 an hour by default) is used (RATE_LIMITED), with Retry-After.'),
  },
} as const;

export const LIST_SCHEMA = {
  tags: ['probe'],
  security,
  operationId: 'probeRuns',
  summary: "The tenant's probe runs (the last 20), newest last",
  response: { 200: { description: 'The runs kept, each with its state.', type: 'array', items: RUN_STATE }, ...AUTH },
} as const;

export const RUN_SCHEMA = {
  tags: ['probe'],
  security,
  operationId: 'probeRun',
  summary: 'A probe run: its state, its verdict once done, and the checks so far',
  params: runParams,
  response: {
    200: { description: 'The run.', ...RUN_STATE },
    ...AUTH,
    404: errorResponse('No such run of this tenant (PROBE_RUN_UNKNOWN).'),
  },
} as const;

export const EVENTS_SCHEMA = {
  tags: ['probe'],
  security,
  operationId: 'probeRunEvents',
  summary: "A probe run's progress as server-sent events (read it with fetch and the Bearer token)",
  params: runParams,
  produces: ['text/event-stream'],
  response: {
    200: {
      description:
        'A text/event-stream: `event: check` with `{ name, status, side, duration_ms?, message?, fix? }` per check (those already done first; the wallet checks when the run ends), then `event: end` with the run (as GET /t/<id>/probe/<run>), and the stream ends.',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    ...AUTH,
    404: errorResponse('No such run of this tenant (PROBE_RUN_UNKNOWN).'),
    503: errorResponse(
      "The run is still going and the tenant already follows --tenant-listeners runs, or the server serves --max-listeners event streams of every kind (LISTENERS_FULL; the connection is closed). A finished run's stream is always served.",
    ),
  },
} as const;

export const REPORT_SCHEMA = {
  tags: ['probe'],
  security,
  operationId: 'probeRunReport',
  summary: "A finished probe run's report: JSON (the CLI's probe report), ?format=html, ?format=junit or ?signed=true",
  params: runParams,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      format: { type: 'string', enum: ['json', 'html', 'junit'], default: 'json' },
      signed: {
        type: 'string',
        enum: ['true', 'false'],
        description:
          'true (a host started with --signing-key): the SignedReport of the JSON report, naming the tenant; wallet-sim verify-report checks it.',
      },
    },
  },
  response: {
    200: {
      description: 'The report: application/json (the probe report), text/html (one self-contained page) or application/xml (JUnit).',
      content: {
        'application/json': { schema: { type: 'object', additionalProperties: true } },
        'text/html': { schema: { type: 'string' } },
        'application/xml': { schema: { type: 'string' } },
      },
    },
    ...AUTH,
    404: errorResponse('No such run of this tenant (PROBE_RUN_UNKNOWN); or ?signed=true without --signing-key (SIGNING_NOT_ENABLED).'),
    409: errorResponse('The run is still going (PROBE_NOT_FINISHED).'),
  },
} as const;
