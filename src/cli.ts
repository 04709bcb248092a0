#!/usr/bin/env node
import { Command } from 'commander';
import { openapiCommand } from './commands/openapi.js';
import { probeCommand } from './commands/probe.js';
import { reconcileCommand } from './commands/reconcile.js';
import { reportCommand } from './commands/report.js';
import { sendCommand } from './commands/send.js';
import { startCommand } from './commands/start.js';
import { tailCommand } from './commands/tail.js';
import { validateCommand } from './commands/validate.js';
import { verifyCommand } from './commands/verify.js';

// A reader that stops early (`wallet-sim openapi | head -1`) closes the pipe: end quietly, as
// cat does, instead of dying with an EPIPE trace.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });

const program = new Command('wallet-sim')
  .description('A sandbox seamless wallet for testing login / bet / bet_result callbacks')
  .version('0.1.0')
  .showHelpAfterError();

program.addCommand(startCommand());
program.addCommand(validateCommand());
program.addCommand(openapiCommand());
program.addCommand(probeCommand());
program.addCommand(sendCommand());
program.addCommand(verifyCommand());
program.addCommand(tailCommand());
program.addCommand(reportCommand());
program.addCommand(reconcileCommand());

await program.parseAsync();
