import closeWithGrace from 'close-with-grace';
import { MESSAGES } from '../text/messages.js';
import { closeGracefully } from '../http/shutdown.js';
import { logger } from './logger.js';
import { type HostedOptions, openHostedServer } from './hosted.js';
import { type Checked, listen, type ServeOptions } from './serve.js';

/** `start --hosted`: the tenants' host. */
export async function startHosted(
  o: ServeOptions & HostedOptions & { logLevel: string; logFormat?: 'json' | 'pretty' },
  checked: Checked,
  portFromEnv: boolean,
): Promise<void> {
  const { app, tenants, close } = await openHostedServer(o, checked, logger(o));
  closeWithGrace({ delay: o.shutdownGraceMs + 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error');
    else if (signal) console.error(MESSAGES.STOPPING(signal, o.shutdownGraceMs));
    const cut = await closeGracefully(app, o.shutdownGraceMs);
    if (cut) console.error(MESSAGES.GRACE_EXPIRED(cut, o.shutdownGraceMs));
    await close();
  });
  const url = await listen(app, { host: o.host, port: o.port, portFromEnv });
  console.log(MESSAGES.HOSTED_LISTENING(url, tenants.size, o.store));
}
