/**
 * The text of each top-level number in a JSON object, as written. JSON.parse turns
 * `0.30000000000000004` and `0.3` into different doubles but `1.10` and `1.1` into the same one,
 * and it loses digits beyond a double's; reading the text is the only way to judge a balance
 * exactly. The input must already be valid JSON (JSON.parse succeeded).
 */
export function topLevelNumberTexts(json: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const ws = () => {
    while (i < json.length && ' \t\r\n'.includes(json[i]!)) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (json[i] !== '"') i += json[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(json.slice(start, i)) as string;
  };
  const skipValue = (): string | undefined => {
    ws();
    const c = json[i];
    if (c === '"') {
      readString();
      return undefined;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      do {
        const d = json[i];
        if (d === '"') {
          readString();
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') depth--;
        i++;
      } while (depth > 0);
      return undefined;
    }
    const start = i;
    while (i < json.length && !',}] \t\r\n'.includes(json[i]!)) i++;
    const text = json.slice(start, i);
    return /^-?\d/.test(text) ? text : undefined;
  };

  ws();
  if (json[i] !== '{') return out;
  i++;
  for (;;) {
    ws();
    if (json[i] === '}' || i >= json.length) break;
    const key = readString();
    ws();
    i++; // colon
    const number = skipValue();
    if (number !== undefined) out.set(key, number);
    ws();
    if (json[i] === ',') i++;
  }
  return out;
}
