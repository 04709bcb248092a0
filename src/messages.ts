/** Every message the CLI prints to a user, in one table (Mockoon's precedent). */
export const MESSAGES = {
  LISTENING: (url: string, callback: string, scenario: string, store: string) =>
    `wallet-sim listening on ${url} (callback ${callback}, scenario "${scenario}", store ${store}; Swagger UI ${url}/docs)`,
  PORT_IN_USE: (host: string, port: number) => `wallet-sim: port ${port} on ${host} is already in use; pick another with --port (0 = any free port)`,
  SCENARIO_INVALID: (detail: string) => `wallet-sim: invalid scenario, nothing started:\n${detail}`,
  SCENARIO_OK: (file: string, name: string) => `${file}: ok (scenario "${name}")`,
  STOPPING: (signal: string) => `wallet-sim: ${signal} received, closing`,
} as const;
