import { maskedHeaders } from '../kernel/secrets.js';
import { HEADER } from '../protocol/seed/wire.js';
import type { Exchange } from './http.js';

const SHOWN_REPLY_HEADERS = ['content-type', HEADER.apiId, HEADER.apiKey, HEADER.callbackUrl, HEADER.reason];

/** The request and reply of one exchange, as a reader needs them to reproduce it with curl. */
export function formatExchange(x: Exchange & { label: string }, indent = '      '): string {
  const lines = [`${x.label}:`];
  const req = maskedHeaders(x.request.headers);
  lines.push(`  → POST ${x.request.url}`);
  lines.push(
    `    ${Object.entries(req)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' | ')}`,
  );
  lines.push(`    ${x.request.body}`);
  if (x.reply) {
    const headers = maskedHeaders(Object.fromEntries(Object.entries(x.reply.headers).filter(([k]) => SHOWN_REPLY_HEADERS.includes(k))));
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
