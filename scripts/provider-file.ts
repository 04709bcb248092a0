import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export const PROVIDER_HEADER = 'transaction_id,event_type,user_id,game_no,amount,status,round_status';

/** Row i of a generated provider file (~65 bytes, as in a 327 MB file of 5,000,000): bets and settlements of 1,000 players, mostly ok. */
export function providerLine(i: number): string {
  const id = String(i).padStart(9, '0');
  const status = i % 50 === 0 ? 'failed' : i % 97 === 0 ? 'pending' : 'ok';
  const settles = i % 2 === 1;
  const player = `player-${String(i % 1000).padStart(5, '0')}`;
  const [event, round] = settles ? ['bet_result', 'settled'] : ['bet', 'open'];
  return `txn-${id},${event},${player},GAME-${id},${(i % 10_000) / 100},${status},${round}\n`;
}

/** Writes a provider CSV of `rows` records (streamed: never held whole); `extra` lines are appended. Returns its size in bytes. */
export async function writeProviderFile(path: string, rows: number, extra: string[] = []): Promise<number> {
  const out = createWriteStream(path);
  out.write(`${PROVIDER_HEADER}\n`);
  for (let i = 0; i < rows;) {
    let chunk = '';
    for (const end = Math.min(rows, i + 10_000); i < end; i++) chunk += providerLine(i);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  for (const line of extra) out.write(`${line}\n`);
  out.end();
  await once(out, 'finish');
  return out.bytesWritten;
}
