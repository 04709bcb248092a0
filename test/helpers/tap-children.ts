// Loaded into every test process by tap (package.json "tap"."node-arg"), after tap's own imports.
//
// tap's runner starts each test file with its process tracker (@tapjs/processinfo) as a module
// hook, and hands it on to every process the test starts: it rewrites each spawn's NODE_OPTIONS
// through process-on-spawn. Unless coverage is asked for (`npm run coverage`), nothing reads what it
// records, and in a process a test starts (a `wallet-sim start`, a wallet of the zoo) it doubled the
// CPU of the start: half a second, hundreds of times a run. The processes a test starts run as a
// user runs them: without it.
import processOnSpawn from 'process-on-spawn';

/** One option of NODE_OPTIONS that loads the tracker, quoted or not (tap writes it in quotes). */
const TRACKER = /(^|\s)"?--(?:import|loader|experimental-loader)[= ][^\s"]*@tapjs[/\\]processinfo[^\s"]*"?/g;

if (process.env._TAPJS_PROCESSINFO_COVERAGE_ === '0') {
  processOnSpawn.removeAllListeners();
  const options = (process.env.NODE_OPTIONS ?? '').replace(TRACKER, '$1').trim();
  if (options) process.env.NODE_OPTIONS = options;
  else delete process.env.NODE_OPTIONS;
}
