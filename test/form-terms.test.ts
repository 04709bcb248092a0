import t from 'tap';
import { inFormTerms } from '../src/text/form-terms.js';

// the probe page's labels (ui/src/probe-words.ts)
const labels = {
  url: 'Wallet callback URL',
  api_id: 'Api-Id',
  api_key: 'Api-Key',
  user: 'Player (user_id)',
  currency: 'Currency',
  decimals: 'Decimals',
};
const o = { url: 'https://wallet.example.com/user/callback', user: 'user-1', timeoutMs: 10_000, labels };

t.test("a probe run's stop lines in the form's terms: its labels, the target and the wallet's words as they are", async (t) => {
  const table: [string, string][] = [
    ['credentials refused (R2): check api_id/api_key', 'credentials refused (R2): check the Api-Id and Api-Key'],
    ['credentials refused (R2): check --api-id/--api-key', 'credentials refused (R2): check the Api-Id and Api-Key'],
    [
      'the wallet refused a login of user-1 (R3): is user a player of this wallet (and currency its currency)?',
      'the wallet refused a login of user-1 (R3): is the Player (user_id) a player of this wallet (and the Currency its currency)?',
    ],
    [
      `HTTP 404 from ${o.url}: nothing answers callbacks at this path; check url (the wallet's callback URL, path included)`,
      `HTTP 404 from ${o.url}: nothing answers callbacks at this path; check the Wallet callback URL (the wallet's callback URL, path included)`,
    ],
    [
      `cannot reach ${o.url} (ECONNREFUSED): is the wallet running, and is --url right?`,
      `cannot reach ${o.url} (ECONNREFUSED): is the wallet running, and is the Wallet callback URL right?`,
    ],
    [
      "the wallet refused the first bet (R3), a bet (the wallet said: bad currency for user): currency USD is not user-1's currency, the wallet's is EUR; probe again with currency EUR",
      "the wallet refused the first bet (R3), a bet (the wallet said: bad currency for user): the Currency USD is not user-1's currency, the wallet's is EUR; probe again with the Currency EUR",
    ],
    [
      `no reply from ${o.url} to a login (timeout): is the wallet up? A slow wallet needs a longer time-out (the CLI's wallet-sim probe --timeout)`,
      `no reply from ${o.url} to a login (timeout): is the wallet up? The host waits 10 s for each reply: the wallet must answer within that`,
    ],
    [
      'no reply from x to a login (timeout): is the wallet up? A slow wallet needs a longer --timeout',
      'no reply from x to a login (timeout): is the wallet up? The host waits 10 s for each reply: the wallet must answer within that',
    ],
  ];
  for (const [said, shown] of table) t.equal(inFormTerms(said, o), shown, said);
  for (const [said] of table) t.notMatch(inFormTerms(said, o), /--|api_|\b(check|is) (url|user)\b|CLI/, 'no API or CLI name left');
});
