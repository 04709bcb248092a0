/* global process */
// Loaded into every test process by tap (package.json "tap"."node-arg"), before tap's own imports
// (a --require runs before every --import).
//
// tap's process tracker (@tapjs/processinfo) hooks every module a test process loads: on Node 20
// through a module-loader thread of its own (module.register), whose start and messages cost about
// 0.5 s of CPU per test file, and it keeps each module's line lengths and looks for its source map
// at exit. That is what coverage needs, and nothing else here. Unless coverage is asked for
// (`npm run coverage`), it is told to track no file (as tap tells it to skip its own) and its
// loader thread is not started; every other module.register goes through. tap-children.ts keeps it
// out of the processes the tests start.
if (process.env._TAPJS_PROCESSINFO_COVERAGE_ === '0') {
  process.env._TAPJS_PROCESSINFO_EXCLUDE_ = '/./';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a --require preload is CommonJS
  const Module = require('node:module');
  const register = Module.register;
  if (register)
    Module.register = function (specifier, ...rest) {
      if (String(specifier).includes('@tapjs/processinfo')) return;
      return register.call(this, specifier, ...rest);
    };
}
