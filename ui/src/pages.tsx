import { useEffect, useState } from 'preact/hooks';
import { tenantId } from './api.js';

/**
 * The dashboard's pages: the callbacks (always), and on a hosted tenant's dashboard the probe
 * page (#probe), where probe as a service exists. A single-tenant wallet-sim has no probe routes,
 * so there #probe is the callbacks page and no link leads to it.
 */
export type Page = 'callbacks' | 'probe';

const pageOf = (hash: string): Page => (tenantId !== undefined && hash === '#probe' ? 'probe' : 'callbacks');

export function usePage(): Page {
  const [page, setPage] = useState(() => pageOf(location.hash));
  useEffect(() => {
    const changed = () => setPage(pageOf(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return page;
}

/** The links between the pages (hosted tenants only). */
export function PageLinks({ page }: { page: Page }) {
  if (tenantId === undefined) return null;
  return (
    <nav aria-label="Pages" class="pages">
      <a href="#" aria-current={page === 'callbacks' ? 'page' : undefined}>
        Callbacks
      </a>
      <a href="#probe" aria-current={page === 'probe' ? 'page' : undefined}>
        Probe your wallet
      </a>
    </nav>
  );
}
