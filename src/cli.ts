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
