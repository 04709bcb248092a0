#!/usr/bin/env node
import { cliProgram } from './app/cli-program.js';

// A reader that stops early (`wallet-sim openapi | head -1`) closes the pipe: end quietly, as
// cat does, instead of dying with an EPIPE trace.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });

await (await cliProgram(process.argv.slice(2))).parseAsync();
