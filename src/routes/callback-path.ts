import { CLI_NAMING, type OptionNaming } from '../text/option-naming.js';

/*
 * The callback path a user picks (start --path, openapi --path, startSimulator's path) is checked
 * here, once: the router would otherwise assert on it (no leading '/'), refuse it as a duplicate
 * of wallet-sim's own route (/admin/reset), or take it and print a URL no request reaches (a
 * space, a '?', a ':' it reads as a parameter).
 */

/** wallet-sim's own routes (hosted mode's /metrics and /t/ included): a callback path is none of them nor under them. */
const OWN_ROUTES = ['/admin', '/docs', '/ui', '/health', '/openapi.json', '/metrics', '/t'];

const EXAMPLE = 'e.g. /callback or /wallet/v1/callback';

/** What is wrong with a callback path, naming the option as the reader spelled it; undefined when it is usable. */
export function callbackPathProblem(path: string, name: OptionNaming = CLI_NAMING): string | undefined {
  const given = `${name.option('path')} ${JSON.stringify(path)}`;
  if (!path.startsWith('/')) return `${given} must start with "/": give the path part of the callback URL, ${EXAMPLE}`;
  // Control characters and spaces are not sent in a request line; '?', '#' end the path; ':' and '*' are the router's parameters.
  // eslint-disable-next-line no-control-regex
  const bad = /[\s\u0000-\u001f\u007f?#:*]/.exec(path)?.[0];
  if (bad !== undefined)
    return `${given} holds ${JSON.stringify(bad)}, which no callback URL's path can carry as given (spaces, control characters, ?, #, : and * are refused); ${EXAMPLE}`;
  const own = OWN_ROUTES.find((r) => path === r || path.startsWith(`${r}/`));
  if (own !== undefined || path === '/')
    return `${given} is taken by wallet-sim's own routes (/, and ${OWN_ROUTES.join(', ')} with all under them); pick another, ${EXAMPLE}`;
  return undefined;
}
