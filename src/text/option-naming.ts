/*
 * How a message names an option: as its reader spelled it. `wallet-sim start --port 0` reads
 * "--port" (and may set WALLET_SIM_PORT); startSimulator({ port: 0 }) reads "the `port` option"
 * and no environment variable. One message, written once, takes the naming of whoever asked.
 */

export interface OptionNaming {
  /** The option as the reader writes it, from its camelCase name ("signingKey"). */
  option(camel: string): string;
  /** The environment variable that also sets it, when the reader has one. */
  env(camel: string): string | undefined;
}

const kebab = (camel: string) => camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The command line: --signing-key, WALLET_SIM_SIGNING_KEY. */
export const CLI_NAMING: OptionNaming = {
  option: (camel) => `--${kebab(camel)}`,
  env: (camel) => `WALLET_SIM_${kebab(camel).replace(/-/g, '_').toUpperCase()}`,
};

/** The Node API (startSimulator): the option's own key; environment variables are not read. */
export const API_NAMING: OptionNaming = {
  option: (camel) => `the \`${camel}\` option`,
  env: () => undefined,
};
