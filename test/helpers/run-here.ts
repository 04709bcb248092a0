// A CLI command's action run in the test's own process, with the options and output the built CLI
// gives it. A spawned command costs a node start (0.3 s of CPU, a second for `start`): a table of
// N refusals spawned costs N of them. A table checks its messages here, and keeps one or two
// spawned runs (spawn-cli.ts) per behaviour for what only a process shows: the exit, stderr's form.
import { format } from 'node:util';
import { Command } from 'commander';
import { cliProgram } from '../../src/app/cli-program.js';

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
  return inTurn(() => runNow(command, args));
}

/** `run` once every run before it in this process has ended. */
function inTurn(run: () => Promise<RanHere>): Promise<RanHere> {
  const ran = turn.then(run);
  turn = ran.catch(() => undefined);
  return ran;
}

async function runNow(command: Command, args: string[]): Promise<RanHere> {
  return captured(() => new Command('wallet-sim').addCommand(command).parseAsync([command.name(), ...args], { from: 'user' }));
}

/**
 * Runs `wallet-sim ...args` as the built CLI parses it (src/app/cli-program.ts), with `env` set in
 * the process's environment while it runs, after any other run of this process has ended. A usage
 * error too, which commander ends with process.exit: its exit is the code passed to process.exit
 * (caught, not taken), its stderr what commander wrote there. Not for `--help` (written to the
 * process's stdout, which is tap's) nor for a run that goes on after its exit (a `start` that listens).
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<RanHere> {
  return inTurn(async () => {
    const program = await cliProgram(args);
    const before = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    Object.assign(process.env, env);
    try {
      return await captured(() => program.parseAsync(args, { from: 'user' }));
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
}

/** process.exit(code) where a run is captured: thrown, so the run ends there as a process would. */
class Exited {
  constructor(readonly code: number) {}
}

async function captured(run: () => Promise<unknown>): Promise<RanHere> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const { exit } = process;
  const write = process.stderr.write;
  const before = process.exitCode;
  console.log = (...a: unknown[]) => out.push(`${format(...a)}\n`);
  console.error = (...a: unknown[]) => err.push(`${format(...a)}\n`);
  process.stderr.write = ((chunk: string | Uint8Array) => err.push(Buffer.from(chunk).toString()) > 0) as typeof process.stderr.write;
  process.exit = ((code?: number) => {
    throw new Exited(Number(code ?? process.exitCode ?? 0));
  }) as typeof process.exit;
  process.exitCode = undefined;
  try {
    await run();
    return { code: Number(process.exitCode ?? 0), stdout: out.join(''), stderr: err.join('') };
  } catch (e) {
    if (!(e instanceof Exited)) throw e;
    return { code: e.code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    console.log = log;
    console.error = error;
    process.stderr.write = write;
    process.exit = exit;
    process.exitCode = before;
  }
}
