import { maskedHeaders } from '../kernel/secrets.js';
import { HEADER } from '../protocol/seed/wire.js';
import type { Exchange } from './http.js';

const SHOWN_REPLY_HEADERS = ['content-type', HEADER.apiId, HEADER.apiKey, HEADER.callbackUrl, HEADER.reason];

/**
 * Whether the Api-Key each side carried is the configured one: masked, a right and a wrong key read
 * the same (`zo*****`), so the reader is told which it is.
 */
export interface KeyNotes {
  request?: boolean;
  reply?: boolean;
}

const noted = (headers: Record<string, string>, configured: boolean | undefined): Record<string, string> =>
  configured === undefined || headers[HEADER.apiKey] === undefined
    ? headers
    : { ...headers, [HEADER.apiKey]: `${headers[HEADER.apiKey]} (${configured ? 'the configured key' : 'not the configured key'})` };

/** The request and reply of one exchange, as a reader needs them to reproduce it with curl. */
export function formatExchange(x: Exchange & { label: string; keys?: KeyNotes }, indent = '      '): string {
  const lines = [`${x.label}:`];
  const req = noted(maskedHeaders(x.request.headers), x.keys?.request);
  lines.push(`  → POST ${x.request.url}`);
  lines.push(
    `    ${Object.entries(req)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' | ')}`,
  );
  lines.push(`    ${x.request.body}`);
  if (x.reply) {
    const shown = Object.fromEntries(Object.entries(x.reply.headers).filter(([k]) => SHOWN_REPLY_HEADERS.includes(k)));
    const headers = noted(maskedHeaders(shown), x.keys?.reply);
    lines.push(`  ← HTTP ${x.reply.status} (${x.durationMs} ms)`);
    if (Object.keys(headers).length)
      lines.push(
        `    ${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join(' | ')}`,
      );
    lines.push(`    ${x.reply.body || '(empty body)'}`);
  } else {
    lines.push(`  ← no reply after ${x.durationMs} ms: ${x.error}`);
  }
  return lines.map((l) => indent + l).join('\n');
}
