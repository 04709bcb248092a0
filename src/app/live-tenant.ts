import type { Simulator } from '../core/simulator.js';
import { join } from 'node:path';
import type { Tenant, TenantCreate } from '../protocol/types.generated.js';
import { type ActiveScenario, compileScenario, loadScenarioFile } from '../core/scenario/scenario.js';
import { bundledScenarios, SCENARIOS_DIR } from '../kernel/paths.js';
import { checkHostable } from '../core/scenario/proxy-check.js';
import { reportOf } from '../grading/grade.js';
import { testResults } from '../evidence/statement.js';
import { type Clock, InFlightLimit, RateLimit } from '../http/rate-limit.js';
import { type HostedTenant, type TenantLimits, UnknownScenario } from '../routes/tenant-directory.js';
import type { TenantRecord } from './tenant-book.js';

/** The scenario a tenant gets when POST /tenants names none. */
export const DEFAULT_TENANT_SCENARIO = 'certification';
/** A tenant's callbacks being answered at once, by default (--tenant-callbacks-in-flight). */
export const DEFAULT_CALLBACKS_IN_FLIGHT = 100;

/** A tenant this process serves: its record, its simulator, what this process counted for it. */
export class LiveTenant implements HostedTenant {
  callbacks = 0;
  lastActivity: number | undefined;
  private ender = new AbortController();
  readonly callbackLimit: RateLimit;
  readonly adminLimit: RateLimit;
  readonly inFlight: InFlightLimit;

  constructor(
    public record: TenantRecord,
    readonly sim: Simulator,
    limits: TenantLimits,
    private readonly now: Clock,
  ) {
    this.callbackLimit = new RateLimit(limits.callbacksPerSecond, 1000, now);
    this.adminLimit = new RateLimit(limits.adminPerMinute, 60_000, now);
    this.inFlight = new InFlightLimit(limits.callbacksInFlight ?? DEFAULT_CALLBACKS_IN_FLIGHT);
  }

  get id() {
    return this.record.id;
  }
  get name() {
    return this.record.name;
  }
  get credentials() {
    return this.record.credentials;
  }
  get streamsEnd(): AbortSignal {
    return this.ender.signal;
  }

  touched(callback: boolean, at?: number): void {
    if (callback) this.callbacks++;
    this.lastActivity = at ?? this.now();
  }

  /** Its token changed or it is gone: the streams opened with the old one end, told `why` (an event stream's last comment). */
  endStreams(why: string): void {
    this.ender.abort(why);
    this.ender = new AbortController();
  }
}

/** The current session's verdict as a signed statement would state it. */
export async function verdictOf(sim: Simulator): Promise<Tenant['verdict']> {
  const { grader, info } = await sim.currentGrading();
  const report = reportOf(grader, { now: new Date(), scenario: sim.scenario.source.name, session: { ...info, seed: sim.seed } });
  if (report.checks.every((c) => c.status === 'not_exercised')) return 'NOT_EXERCISED';
  return testResults(report.checks).result;
}

/** A bundled scenario's name (never a path: a tenant reads no file of the host) or a whole document. */
export function scenarioOf(given: TenantCreate['scenario'], maxPlayers?: number): ActiveScenario {
  if (given === undefined || typeof given === 'string') {
    const name = given ?? DEFAULT_TENANT_SCENARIO;
    const names = bundledScenarios();
    if (!names.includes(name))
      throw new UnknownScenario(
        `/scenario "${name}" is no bundled scenario: name one of ${names.join(', ')}, or send a whole scenario document`,
      );
    const bundled = loadScenarioFile(join(SCENARIOS_DIR, `${name}.json`));
    checkHostable(bundled, 'scenario', maxPlayers); // (a bundled one lists a few players: a very low --tenant-players refuses it too)
    return bundled;
  }
  const scenario = compileScenario(given, 'scenario');
  checkHostable(scenario, 'scenario', maxPlayers);
  return scenario;
}
