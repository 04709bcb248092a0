// What the journal's text must equal, and bodies a caller may send: shared by the journal's text
// tests (test/journal-text.test.ts, test/redis/journal-seal.test.ts).
import type { NewEntry } from '../../src/journal/journal.js';
import { bet, login } from './app.js';

export type Begun = Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>;
export type Done = { replied_at: string; duration_ms: number; client_gone: boolean };

/** What the journal did before: copy the entry into new objects, then JSON.stringify them. */
export function before(id: number, entry: Begun, done?: Done): string {
  if (!done) return JSON.stringify({ id, ...entry });
  const full = { id, ...entry, duration_ms: 0 };
  const { received_at, ...rest } = full;
  return JSON.stringify({
    ...rest,
    id,
    received_at,
    replied_at: done.replied_at,
    duration_ms: done.duration_ms,
    reply: { ...full.reply, client_gone: done.client_gone },
  });
}

export const tricky: [string, string][] = [
  ['unicode', JSON.stringify({ ...login('joueur-é-玩家-🎲'), feedback_data: 'naïve ☃ \u2028 \u2029' })],
  ['control characters', JSON.stringify({ ...login('p'), feedback_data: '\u0000\u0001\b\f\n\r\t\u001f\u007f' })],
  [
    'lone surrogates',
    '{"transaction_id":"t\\ud800","event_type":"login","timestamp":1,"feedback_data":"\\udfff x \\ud83c","user_id":"\\udc00"}',
  ],
  [
    'huge and odd numbers',
    '{"transaction_id":"n","event_type":"login","timestamp":1e400,"feedback_data":"f","user_id":"p","a":-0,"b":1e21,"c":123456789012345678901234567890,"d":5e-324,"e":1.50}',
  ],
  [
    'a bet',
    JSON.stringify(
      bet('player-1', 'g1', [
        ['1', 'P', 100],
        ['2', 'B', 50],
      ]),
    ),
  ],
  ['not JSON', '{"event_type": "login", '],
  ['a JSON string', '"just a string"'],
  ['JSON null', 'null'],
  ['an array', '[1, "two", {"three": [3]}]'],
  ['empty', ''],
  ['keys that look special', '{"__proto__x":1,"constructor_":2,"toJSON":"no","":"empty key","\\"quoted\\"":"q"}'],
];
