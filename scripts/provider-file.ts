import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export const PROVIDER_HEADER = 'transaction_id,event_type,user_id,game_no,amount,status,round_status';

/** Row i of a generated provider file (~65 bytes): bets and settlements of 1,000 players, mostly ok. */
export function providerLine(i: number): string {
  const id = String(i).padStart(9, '0');
  const status = i % 50 === 0 ? 'failed' : i % 97 === 0 ? 'pending' : 'ok';
  const settles = i % 2 === 1;
  return `tx-${id},${settles ? 'bet_result' : 'bet'},player-${String(i % 1000).padStart(4, '0')},G-${id},${(i % 10_000) / 100},${status},${settles ? 'settled' : 'open'}\n`;
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
