import closeWithGrace from 'close-with-grace';
import { type Command, Option } from 'commander';
import { int } from '../commands/options.js';
import { PROBE_DEFAULTS } from '../routes/probe-runs.js';
import { MESSAGES } from '../text/messages.js';
import { closeGracefully } from '../http/shutdown.js';
import { logger } from './logger.js';
import { DEFAULT_MAX_TENANTS, type HostedOptions, openHostedServer, TENANT_DEFAULTS } from './hosted.js';
import { type Checked, listen, type ServeOptions } from './serve.js';

/** `start --hosted`: the tenants' host. */
export async function startHosted(
  o: ServeOptions & HostedOptions & { logLevel: string; logFormat?: 'json' | 'pretty' },
  checked: Checked,
  portFromEnv: boolean,
): Promise<void> {
  const { app, tenants, close } = await openHostedServer(o, checked, logger(o));
  closeWithGrace({ delay: o.shutdownGraceMs + 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error');
    else if (signal) console.error(MESSAGES.STOPPING(signal, o.shutdownGraceMs));
    const cut = await closeGracefully(app, o.shutdownGraceMs);
    if (cut) console.error(MESSAGES.GRACE_EXPIRED(cut, o.shutdownGraceMs));
    await close();
  });
  const url = await listen(app, { host: o.host, port: o.port, portFromEnv });
  console.log(MESSAGES.HOSTED_LISTENING(url, tenants.size, o.store));
  if (o.allowPrivateTargets) console.error(MESSAGES.PRIVATE_TARGETS);
}

/** An option that also reads WALLET_SIM_<NAME> (as start's own). */
const opt = (flags: string, description: string, env: string) => new Option(flags, description).env(`WALLET_SIM_${env}`);

/** `start`'s hosted-mode options (docs/hosted.md). */
export function addHostedOptions(command: Command): Command {
  return command
    .addOption(
      opt(
        '--hosted',
        'the hosted certification sandbox: a workspace per integrator under /t/<id>/, created with POST /tenants (docs/hosted.md)',
        'HOSTED',
      ).default(false),
    )
    .addOption(
      opt('--host-token-file <file>', "with --hosted: the file holding the host's token (32+ characters), for /tenants", 'HOST_TOKEN_FILE'),
    )
    .addOption(
      opt(
        '--host-token <token>',
        'with --hosted: the host token itself (prefer --host-token-file: a command line is visible to ps)',
        'HOST_TOKEN',
      ),
    )
    .addOption(
      opt(
        '--max-tenants <n>',
        'with --hosted: the most tenants the host holds (POST /tenants answers 409 TENANT_LIMIT past it)',
        'MAX_TENANTS',
      )
        .default(DEFAULT_MAX_TENANTS)
        .argParser(int(1, 1_000_000)),
    )
    .addOption(
      opt(
        '--public-url <url>',
        "with --hosted: the base of the URLs handed to tenants, e.g. https://sandbox.example.com behind a TLS proxy (default: the request's own)",
        'PUBLIC_URL',
      ),
    )
    .addOption(
      opt('--tenant-journal-size <n>', "with --hosted: callbacks each tenant's journal keeps", 'TENANT_JOURNAL_SIZE')
        .default(TENANT_DEFAULTS.journalSize)
        .argParser(int(0, 10_000_000)),
    )
    .addOption(
      opt('--tenant-journal-bytes <n>', "with --hosted: characters of JSON each tenant's journal holds at most", 'TENANT_JOURNAL_BYTES')
        .default(TENANT_DEFAULTS.journalBytes)
        .argParser(int(0, 2 ** 31)),
    )
    .addOption(
      opt('--tenant-retain-transactions <n>', 'with --hosted: applied transactions each tenant remembers', 'TENANT_RETAIN_TRANSACTIONS')
        .default(TENANT_DEFAULTS.retainTransactions)
        .argParser(int(1, 1_000_000_000)),
    )
    .addOption(
      opt(
        '--tenant-players <n>',
        "with --hosted: players each tenant's wallet holds at most (a new one past it: R3 PLAYER_LIMIT, PUT …/players 409)",
        'TENANT_PLAYERS',
      )
        .default(TENANT_DEFAULTS.players)
        .argParser(int(1, 100_000_000)),
    )
    .addOption(
      opt(
        '--tenant-callbacks-per-second <n>',
        'with --hosted: callbacks a tenant may send per second, per process (past it: 429 with Retry-After)',
        'TENANT_CALLBACKS_PER_SECOND',
      )
        .default(TENANT_DEFAULTS.callbacksPerSecond)
        .argParser(int(1, 1_000_000)),
    )
    .addOption(
      opt(
        '--tenant-callbacks-in-flight <n>',
        'with --hosted: callbacks a tenant may have being answered at once, a delayed reply counting until written (past it: 429)',
        'TENANT_CALLBACKS_IN_FLIGHT',
      )
        .default(TENANT_DEFAULTS.callbacksInFlight)
        .argParser(int(1, 1_000_000)),
    )
    .addOption(
      opt(
        '--tenant-admin-per-minute <n>',
        "with --hosted: a tenant's admin requests per minute, per process (past it: 429)",
        'TENANT_ADMIN_PER_MINUTE',
      )
        .default(TENANT_DEFAULTS.adminPerMinute)
        .argParser(int(1, 1_000_000)),
    )
    .addOption(
      opt(
        '--tenant-listeners <n>',
        'with --hosted: event streams a tenant may hold open at once (within --max-listeners)',
        'TENANT_LISTENERS',
      )
        .default(TENANT_DEFAULTS.listeners)
        .argParser(int(1, 100_000)),
    )
    .addOption(
      opt(
        '--tenant-probe-runs <n>',
        'with --hosted: probe runs a tenant may start an hour (POST /t/<id>/probe answers 429 past it)',
        'TENANT_PROBE_RUNS',
      )
        .default(PROBE_DEFAULTS.runsPerHour)
        .argParser(int(1, 100_000)),
    )
    .addOption(
      opt(
        '--allow-private-targets',
        'with --hosted: let POST /t/<id>/probe go to loopback, private, shared and link-local addresses (a host on a private network; never on a public host)',
        'ALLOW_PRIVATE_TARGETS',
      ),
    );
}
