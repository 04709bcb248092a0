// A CLI command's action run in the test's own process, with the options and output the built CLI
// gives it. A spawned command costs a node start (0.3 s of CPU, a second for `start`): a table of
// N refusals spawned costs N of them. A table checks its messages here, and keeps one or two
// spawned runs (spawn-cli.ts) per behaviour for what only a process shows: the exit, stderr's form.
import { format } from 'node:util';
import { Command } from 'commander';

export interface RanHere {
  /** process.exitCode as the action left it (0 when it set none). */
  code: number;
  /** What it printed with console.log / console.error, each call a line. */
  stdout: string;
  stderr: string;
}

/**
 * The runner's shell cannot change a command run here, as spawn-cli.ts keeps it from a spawned one:
 * the options' WALLET_SIM_* variables (WALLET_SIM_API_ID…) are dropped once, when this loads. A test
 * may still set one for its own runs; the test harness's own switches stay.
 */
const HARNESS = /^WALLET_SIM_(REQUIRE_[A-Z]+|CHROMIUM|FULL_MATRIX|SCREENSHOTS|PROPERTY_RUNS)$/;
for (const name of Object.keys(process.env)) if (name.startsWith('WALLET_SIM_') && !HARNESS.test(name)) delete process.env[name];

/** The run going on: console and process.exitCode are the process's own, so runs take turns. */
let turn: Promise<unknown> = Promise.resolve();

/**
 * Runs `command` (a fresh one from its factory, e.g. verifyReportCommand()) under a `wallet-sim`
 * program, as `wallet-sim <name> ...args`, after any other run of this process has ended. Only for
 * actions that print through console and set process.exitCode, never process.exit (a usage error
 * exits: spawn those).
 */
export function runHere(command: Command, args: string[]): Promise<RanHere> {
  const ran = turn.then(() => runNow(command, args));
  turn = ran.catch(() => undefined);
  return ran;
}

async function runNow(command: Command, args: string[]): Promise<RanHere> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const before = process.exitCode;
  console.log = (...a: unknown[]) => out.push(format(...a));
  console.error = (...a: unknown[]) => err.push(format(...a));
  process.exitCode = undefined;
  try {
    await new Command('wallet-sim').addCommand(command).parseAsync([command.name(), ...args], { from: 'user' });
    return { code: Number(process.exitCode ?? 0), stdout: lines(out), stderr: lines(err) };
  } finally {
    console.log = log;
    console.error = error;
    process.exitCode = before;
  }
}

const lines = (printed: string[]) => printed.map((l) => `${l}\n`).join('');
