/* global process */
// Loaded into every test process by tap (package.json "tap"."node-arg"), before tap's own imports
// (a --require runs before every --import).
//
// tap's process tracker (@tapjs/processinfo) reads every module a test process loads, keeps the
// length of each of its lines and looks for its source map at exit: what coverage needs. Unless
// coverage is asked for (`npm run coverage`), it is told to track no file, as tap tells it to skip
// its own: that was 0.6 s of CPU per test file. tap-children.ts keeps it out of the processes the
// tests start.
if (process.env._TAPJS_PROCESSINFO_COVERAGE_ === '0') process.env._TAPJS_PROCESSINFO_EXCLUDE_ = '/./';
