/**
 * A probe run's words as the hosted probe page says them (docs/hosted.md: NOT CHECKED says why "in
 * the form's terms"). The service names its fields as the API does (`url`, `api_id/api_key`,
 * `user`, `currency`), the CLI as options (`--url`…); the page names them by the form's labels.
 * What the run's target and the wallet said is quoted as it is: only the words around it change.
 */

/** The probe form's labels, by the field each fills (the page's own words: ui/src/probe-words.ts). */
export type FormLabels = Record<'url' | 'api_id' | 'api_key' | 'user' | 'currency' | 'decimals', string>;

/** A field named as a word (the API's or the CLI's name): not inside a URL, an id or "the player's currency". */
const FIELD = /(?<![\w/.'-])(?<!'s |its )(?:--)?(url|user|currency|decimals)(?![\w/.-])/g;

/** The wallet's own words in a stop line, left as they are. */
const QUOTED = /\(the wallet said: [^]*?\)(?=[:,]|$)/g;

export interface FormTermsOptions {
  /** The run's target: its URL and player, quoted as they are. */
  url: string;
  user: string;
  /** How long the host waits for a reply (it has no time-out to set). */
  timeoutMs: number;
  labels: FormLabels;
}

export function inFormTerms(message: string, o: FormTermsOptions): string {
  const kept = [o.url, o.user].filter((s) => s.length > 0).map(escape);
  const spans = new RegExp([QUOTED.source, ...kept].join('|'), 'g');
  let out = '';
  let at = 0;
  for (const m of message.matchAll(spans)) {
    out += words(message.slice(at, m.index), o) + m[0];
    at = m.index + m[0].length;
  }
  return out + words(message.slice(at), o);
}

function words(text: string, o: FormTermsOptions): string {
  return text
    .replace(/(?:--)?api[_-]id\/(?:--)?api[_-]key\b/g, `the ${o.labels.api_id} and ${o.labels.api_key}`)
    .replace(/(?<![\w/.-])(?:--)?api[_-](id|key)\b/g, (_, k: 'id' | 'key') => `the ${o.labels[`api_${k}`]}`)
    .replace(
      / ?A slow wallet needs a longer (?:--timeout|time-out)(?: \([^)]*\))?/g,
      ` The host waits ${o.timeoutMs / 1000} s for each reply: the wallet must answer within that`,
    )
    .replace(FIELD, (_, f: keyof FormLabels) => `the ${o.labels[f]}`);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
