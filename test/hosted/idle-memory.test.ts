// An idle tenant's cost in memory, measured: tenants created and never used, the heap after full
// garbage collections. The bound is wide (what is measured is about 20-30 KiB a tenant,
// docs/hosted.md); what it catches is a tenant that preallocates its journal or its limits.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { buildHostedTestApp } from '../helpers/hosted.js';
import { TENANT_DEFAULTS } from '../../src/app/tenants.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const settle = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

t.test('an idle tenant costs well under 256 KiB of heap (the default limits)', async (t) => {
  const { app, tenants } = await buildHostedTestApp({
    backend: {
      journalSize: TENANT_DEFAULTS.journalSize,
      journalBytes: TENANT_DEFAULTS.journalBytes,
      retainTransactions: TENANT_DEFAULTS.retainTransactions,
    },
  });
  t.teardown(() => app.close());
  for (let i = 0; i < 20; i++) await tenants.create({ name: `warm-${i}` }); // code paths compiled, caches filled
  const before = settle();
  const n = 300;
  for (let i = 0; i < n; i++) await tenants.create({ name: `idle-${i}` });
  const each = (settle() - before) / n;
  t.comment(`heap per idle tenant: ${(each / 1024).toFixed(1)} KiB`);
  t.ok(each < 256 * 1024, `${(each / 1024).toFixed(1)} KiB per idle tenant`);
  t.equal(tenants.size, n + 20);
});
