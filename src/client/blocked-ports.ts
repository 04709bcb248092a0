/**
 * The ports fetch refuses to call: the Fetch standard's "port blocking" section (its list of bad
 * ports, https://fetch.spec.whatwg.org/#port-blocking), which undici enforces ("bad port") and
 * browsers too. undici keeps its copy in an internal module, not exported: this is that list.
 * A wallet served on one of them listens, yet no fetch-based client (wallet-sim's own send, probe,
 * report, a browser) can call it.
 */
export const BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The port a URL calls (its scheme's default when it names none), or undefined for a URL that does not parse. */
export function portOf(url: string | URL): number | undefined {
  try {
    const u = new URL(url);
    return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    return undefined;
  }
}

/** The one line every client says when fetch refused a port: what it is, and what to do. */
export const blockedPortText = (port: number | undefined) =>
  `port ${port ?? '(unknown)'} is one fetch refuses to call (the Fetch standard's blocked ports): serve the wallet on another port`;

/** Whether a described fetch error is a blocked port's (the probe's stop, send's "not sent"). */
export const isBlockedPortText = (text: string | undefined) => /^port \S+ is one fetch refuses to call/.test(text ?? '');
