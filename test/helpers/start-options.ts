// `wallet-sim start`'s options as its parser reads them, and the checks it makes before it opens
// anything, in the test's own process: which scenario a start would load, or the message it
// refuses with, without a node start (a second of CPU each). spawn-cli.ts for the process itself.
import { startCommand, type StartOptions } from '../../src/app/start.js';
import { type Checked, checkOptions, StartFailure } from '../../src/app/serve.js';

/**
 * The options `wallet-sim start ...args` acts on, with `env` as its only WALLET_SIM_* variables
 * (as cleanEnv gives a spawned start: a developer's shell cannot change the tests).
 */
export function startOptions(args: string[], env: Record<string, string> = {}): StartOptions {
  const saved = Object.entries(process.env).filter(([k]) => k.startsWith('WALLET_SIM_'));
  for (const [k] of saved) delete process.env[k];
  Object.assign(process.env, env);
  let options: StartOptions | undefined;
  try {
    // parse, not parseAsync: the action below is synchronous, so nothing else runs while the
    // environment is swapped.
    startCommand()
      .action((o: StartOptions) => {
        options = o;
      })
      .parse(args, { from: 'user' });
  } finally {
    for (const k of Object.keys(env)) delete process.env[k];
    Object.assign(process.env, Object.fromEntries(saved));
  }
  return options!;
}

/** What start makes of `wallet-sim start ...args`: the options checked (scenario loaded), or its refusal's message. */
export function checkStart(args: string[], env: Record<string, string> = {}): Checked | string {
  try {
    return checkOptions(startOptions(args, env));
  } catch (e) {
    if (!(e instanceof StartFailure)) throw e;
    return e.message;
  }
}
