/** The package's Node API: `import { startSimulator } from 'wallet-sim'` (docs/node-api.md). */
export {
  type JournalFilter,
  type RunningHost,
  type RunningSimulator,
  startSimulator,
  type StartSimulatorOptions,
} from './app/start-simulator.js';
export { StartFailure } from './app/serve.js';
export type {
  CallbackReply,
  CallbackRequest,
  JournalEntry,
  JournalMatch,
  JournalPage,
  Player,
  PlayerUpdate,
  Report,
  ReportStatement,
  Scenario,
  SignedReport,
  Tenant,
  TenantCreate,
  TenantCreated,
} from './protocol/types.generated.js';
