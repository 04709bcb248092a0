import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command, Option } from 'commander';
import { describeFetchError, isBadPort } from '../client/http.js';
import { markRequired, readTokenFile, usageErrorsExit2 } from './options.js';
import { terminalText } from '../text/terminal-text.js';
import { withoutByteOrderMark } from '../kernel/documents.js';
import type { Tenant, TenantCreated } from '../protocol/types.generated.js';

/*
 * `wallet-sim tenant create|list|delete|rotate`: the host's routes (/tenants) of a hosted
 * wallet-sim, from a terminal. Exit 0 done, 1 refused (the answer says why), 2 unreachable or unusable input.
 */

interface HostOptions {
  url: string;
  /** --host-token-file, read: the token itself. */
  hostTokenFile: string;
  json: boolean;
}

const TIMEOUT_MS = 30_000;

class Refused extends Error {}

const hostOptions = (command: Command): Command =>
  markRequired(command)
    .addOption(
      new Option('--url <url>', 'the hosted wallet-sim, e.g. https://sandbox.example.com (without /tenants)')
        .env('WALLET_SIM_URL')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--host-token-file <file>', 'file holding the host token (start --host-token-file)')
        .env('WALLET_SIM_HOST_TOKEN_FILE')
        .argParser(readTokenFile)
        .makeOptionMandatory(),
    )
    .option('--json', 'print the answer as JSON', false);

/** A tenant's URL (…/t/<id>, …/t/<id>/callback) where the host's is wanted: said before anything is sent. */
function hostUrl(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new Error(`--url ${given} is not a URL: give the hosted wallet-sim's base URL, e.g. http://127.0.0.1:8080`);
  }
  if (/^\/t\/[^/]+/.test(url.pathname))
    throw new Error(`--url ${given} is a tenant's URL: give the host's base URL (e.g. ${url.origin}), not a tenant's (/t/<id>)`);
  return given.replace(/\/+$/, '');
}

async function call(o: HostOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const url = `${hostUrl(o.url)}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${o.hostTokenFile}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (e) {
    const running = isBadPort(e) ? '' : '; is a hosted wallet-sim (start --hosted) running there?';
    throw new Error(`${method} ${url}: ${describeFetchError(e, TIMEOUT_MS, url)}${running}`, { cause: e });
  }
  const text = await res.text();
  if (res.status >= 400) {
    let message = text.slice(0, 500);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      /* not JSON */
    }
    // No tenant routes at all: not a hosted wallet-sim (an unusable --url, exit 2), not a refusal.
    if (res.status === 404 && message.startsWith('no route '))
      throw new Error(
        `${method} ${url}: HTTP 404: the wallet-sim there is not hosted (no route ${method} ${path}); give the base URL of one ` +
          'started with start --hosted --host-token-file <file>',
      );
    throw new Refused(`${method} ${url}: HTTP ${res.status}: ${message}`);
  }
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** Runs one subcommand: its exit code from what happened. */
async function run(what: () => Promise<void>): Promise<void> {
  try {
    await what();
    process.exitCode = 0;
  } catch (e) {
    console.error(`wallet-sim tenant: ${terminalText((e as Error).message)}`);
    process.exitCode = e instanceof Refused ? 1 : 2;
  }
}

/** --scenario: a bundled scenario's name, or a scenario file sent whole. */
function scenarioOf(given: string | undefined): unknown {
  if (given === undefined || !existsSync(given)) return given;
  try {
    return JSON.parse(withoutByteOrderMark(readFileSync(given, 'utf8'))) as unknown;
  } catch (e) {
    throw new Error(`--scenario ${given}: ${(e as Error).message}; give a bundled scenario's name or a scenario file (JSON)`, {
      cause: e,
    });
  }
}

const shown = (t: TenantCreated, tokenFile?: string) =>
  [
    `tenant ${t.id} ("${terminalText(t.name)}")`,
    `  callback URL: ${t.callback_url}`,
    `  Api-Id:       ${t.credentials.api_id}`,
    `  Api-Key:      ${t.credentials.api_key}`,
    `  dashboard:    ${t.dashboard_url}`,
    ...(tokenFile === undefined
      ? [`  token:        ${t.token}`, '  (the token is shown this once: hand it to the integrator; the host keeps only its hash)']
      : [
          `  token:        written to ${tokenFile} (mode 0600), not shown`,
          '  (hand that file to the integrator: its --token-file; the host keeps only the hash)',
        ]),
  ].join('\n');

/** --token-file of create and rotate: checked before the token is issued, so a token is never issued and then lost. */
function writableTokenFile(file: string | undefined): void {
  if (file === undefined) return;
  if (existsSync(file)) throw new Error(`--token-file ${file} exists: remove it or give another path (no token was issued)`);
  if (!existsSync(dirname(file))) throw new Error(`--token-file ${file}: no directory ${dirname(file)} (no token was issued)`);
}

/** Prints a tenant with its new token: the token into --token-file (0600, never over a file) when given. */
function issued(t: TenantCreated, o: HostOptions & { tokenFile?: string }): void {
  if (o.tokenFile !== undefined) {
    try {
      writeFileSync(o.tokenFile, `${t.token}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      // Issued but not written: shown, or it is lost.
      console.log(o.json ? JSON.stringify(t, null, 2) : shown(t));
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new Error(`cannot write --token-file ${o.tokenFile} (${why}): the token is printed above`, { cause: e });
    }
    const { token: _written, ...rest } = t;
    return console.log(o.json ? JSON.stringify({ ...rest, token_file: o.tokenFile }, null, 2) : shown(t, o.tokenFile));
  }
  console.log(o.json ? JSON.stringify(t, null, 2) : shown(t));
}

const writeTokenToOption = () =>
  new Option('--token-file <file>', 'write the token to this new file (mode 0600; an existing file is refused) instead of printing it');

export function tenantCommand(): Command {
  const tenant = new Command('tenant').description(
    "A hosted wallet-sim's tenants (start --hosted): create, list, delete, rotate a token; with the host token",
  );
  tenant.addCommand(
    hostOptions(new Command('create'))
      .description('Create a tenant: prints its callback URL, credentials, dashboard and token (shown once, or written to --token-file)')
      .requiredOption('--name <name>', "the integrator's name (1 to 64 printable characters)")
      .option('--scenario <name|file>', 'a bundled scenario (default certification) or a scenario file')
      .addOption(writeTokenToOption())
      .action((o: HostOptions & { name: string; scenario?: string; tokenFile?: string }) =>
        run(async () => {
          writableTokenFile(o.tokenFile);
          const scenario = scenarioOf(o.scenario);
          issued((await call(o, 'POST', '/tenants', { name: o.name, scenario })) as TenantCreated, o);
          // (the host generates a tenant's credentials: a scenario's own would be taken for the tenant's)
          if (scenario !== null && typeof scenario === 'object' && 'credentials' in scenario)
            console.error(
              "wallet-sim tenant create: the scenario's credentials are not used: a tenant's are generated (the Api-Id and Api-Key above); give those to the provider",
            );
        }),
      ),
  );
  tenant.addCommand(
    hostOptions(new Command('list'))
      .description('List the tenants: id, verdict, callbacks, last request (a callback or an admin read, in this process), name')
      .action((o: HostOptions) =>
        run(async () => {
          const listed = (await call(o, 'GET', '/tenants')) as Tenant[];
          if (o.json) return console.log(JSON.stringify(listed, null, 2));
          if (!listed.length) return console.log('no tenants: create one with wallet-sim tenant create --name <name>');
          for (const t of listed)
            console.log(
              `${t.id}  ${t.verdict.padEnd(13)} ${String(t.callbacks).padStart(7)} callbacks  last request ${t.last_activity_at ?? 'never'}  "${terminalText(t.name)}"`,
            );
        }),
      ),
  );
  tenant.addCommand(
    hostOptions(new Command('delete'))
      .description('Delete a tenant and all its data')
      .argument('<id>', "the tenant's id")
      .action((id: string, o: HostOptions) =>
        run(async () => {
          await call(o, 'DELETE', `/tenants/${encodeURIComponent(id)}`);
          console.log(`deleted tenant ${terminalText(id)}`);
        }),
      ),
  );
  tenant.addCommand(
    hostOptions(new Command('rotate'))
      .description('Give a tenant a new token (the old one stops working; its credentials stay)')
      .argument('<id>', "the tenant's id")
      .addOption(writeTokenToOption())
      .action((id: string, o: HostOptions & { tokenFile?: string }) =>
        run(async () => {
          writableTokenFile(o.tokenFile);
          issued((await call(o, 'POST', `/tenants/${encodeURIComponent(id)}/token`)) as TenantCreated, o);
        }),
      ),
  );
  return usageErrorsExit2(tenant);
}
