// Proxy mode's wallet-side violations as timelines: the evidence is the upstream leg (sent, answered
// or not), and the picture puts the provider's callback, as wallet-sim answered it, on a lane of its
// own above it, on one time axis.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { formatHtml } from '../../src/grading/format-html.js';
import type { Report } from '../../src/protocol/types.generated.js';
import { bet, post } from '../helpers/app.js';
import { startProxy } from './upstream.js';

/** An operator's wallet that answers every callback with `answer`, on a free loopback port. */
async function wallet(t: Test, answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}/callback`;
}

const cases: {
  name: string;
  answer: (req: IncomingMessage, res: ServerResponse) => void;
  check: string;
  fate: string;
  provider: string;
}[] = [
  {
    name: 'an HTTP 500 with a raw body',
    answer: (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded'),
    check: 'WALLET_REPLY_VALID',
    fate: 'written',
    provider: 'reply written',
  },
  {
    name: 'a connection closed without a reply',
    answer: (req) => req.socket.destroy(),
    check: 'WALLET_ANSWERS_IN_TIME',
    fate: 'no_reply',
    provider: 'mark dropped',
  },
];

for (const c of cases)
  t.test(`${c.name}: ${c.check}'s timeline has the provider's lane and the upstream leg`, async (t) => {
    const proxy = await startProxy(t, {}, await wallet(t, c.answer));
    const placed = bet('pic', 'g1', [['1', 'P', 10]], { currency: 'USD' });
    // Without a reply upstream, the provider's connection is closed: its fetch fails.
    await post(proxy.url, placed).catch(() => undefined);
    const report = (await proxy.app.inject({ url: '/admin/report' })).json() as Report;
    const check = report.checks.find((x) => x.id === c.check)!;
    t.equal(check.status, 'fail');
    const v = check.violations.find((x) => x.transaction_id === placed.transaction_id)!;
    t.match(
      v.evidence,
      [{ leg: 'upstream', transaction_id: placed.transaction_id, event_type: 'bet', fate: c.fate }],
      'the upstream leg, its fate',
    );
    t.equal(v.decided_at, v.evidence![0]!.replied_at, 'decided when the answer came (or the wait for it ended)');
    const html = formatHtml(report, { url: proxy.base, failOn: 'error' });
    const row = html.match(new RegExp(`<tr class="pictures" data-check="${c.check}">.*?</tr>`, 's'))?.[0] ?? '';
    const lanes = [...row.matchAll(/class="lane" data-lane="([^"]+)"/g)].map((m) => m[1]);
    t.same(
      lanes,
      [`provider:${placed.transaction_id}`, `upstream:${placed.transaction_id}`],
      'two lanes: the provider, then the upstream leg',
    );
    t.match(row, c.provider, "the provider's reply as wallet-sim answered it");
  });

t.test("a rule that drops or holds the relayed reply: the provider's lane draws what the provider got", async (t) => {
  const proxy = await startProxy(
    t,
    {
      rules: [
        { name: 'drop', when: { event_type: 'bet', user_id: 'dropme' }, then: { drop_connection: true } },
        { name: 'slow', when: { event_type: 'bet', user_id: 'slowme' }, then: { delay_ms: 600 } },
      ],
    },
    await wallet(t, (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded')),
  );
  const dropped = bet('dropme', 'g1', [['1', 'P', 10]], { currency: 'USD' });
  const held = bet('slowme', 'g2', [['1', 'P', 10]], { currency: 'USD' });
  t.equal(await post(proxy.url, dropped).catch(() => 'no reply'), 'no reply', 'the provider got no reply');
  await post(proxy.url, held);
  const report = (await proxy.app.inject({ url: '/admin/report' })).json() as Report;
  const check = report.checks.find((x) => x.id === 'WALLET_REPLY_VALID')!;
  const of = (tx: string) => check.violations.find((v) => v.transaction_id === tx)!.evidence!;
  t.match(
    of(dropped.transaction_id),
    [
      { leg: 'upstream', fate: 'written' },
      { journal_id: Number, fate: 'dropped' },
    ],
    'dropped to the provider',
  );
  const [upstream, provider] = of(held.transaction_id);
  t.equal(provider?.leg, undefined, "the provider's own attempt (its leg by default)");
  t.equal(provider?.delay_ms, 600, 'held by the rule');
  t.ok(
    Date.parse(provider!.replied_at!) - Date.parse(upstream!.replied_at!) >= 590,
    'written to the provider after the hold, not when the wallet answered',
  );
  const html = formatHtml(report, { url: proxy.base, failOn: 'error' });
  const row = html.match(/<tr class="pictures" data-check="WALLET_REPLY_VALID">.*?<\/tr>/s)?.[0] ?? '';
  const lanes = [...row.matchAll(/class="lane" data-lane="([^"]+)"/g)].map((m) => m[1]);
  t.same(lanes.filter((l) => l!.startsWith('provider:')).length, 2, 'one provider lane each, not two');
});
