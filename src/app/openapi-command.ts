import { Command } from 'commander';
import { stringify } from 'yaml';
import { buildApp } from './app.js';
import { DEFAULT_SERVER } from '../openapi/openapi.js';
import { DEFAULT_SCENARIO } from '../kernel/paths.js';
import { loadScenarioFile } from '../core/scenario/scenario.js';
import {} from '../core/simulator.js';
import { MemoryBackend } from '../backends/memory/memory.js';
import { openSimulator } from './compose.js';
import { HEADER_NAME } from '../protocol/seed/wire.js';
import { callbackPathProblem } from '../routes/callback-path.js';
import { namesItsHelp } from '../commands/options.js';
import { checkWritable, OutputFileError, writeOutput } from '../commands/output-file.js';

export { DEFAULT_SERVER };

export interface OpenapiCommandOptions {
  /** Server URL written into the document ("/" keeps it relative, as served at /openapi.json). */
  server?: string;
  /** Callback path, as `start --path`. */
  path?: string;
  yaml?: boolean;
}

/**
 * The OpenAPI document as text, built by the same app the simulator runs, which never listens.
 * A file has no origin to be relative to, so it names an absolute server (Postman and code
 * generators need one); the served /openapi.json keeps "/".
 */
export async function openapiText(o: OpenapiCommandOptions = {}): Promise<string> {
  const sim = await openSimulator(loadScenarioFile(DEFAULT_SCENARIO), new MemoryBackend());
  const app = await buildApp({ sim, path: o.path });
  try {
    await app.ready();
    const doc = structuredClone(app.swagger()) as unknown as Record<string, unknown>;
    const server = o.server ?? DEFAULT_SERVER;
    if (server !== '/') {
      doc.servers = [{ url: server, description: 'wallet-sim start (change to where yours listens)' }];
      // The Callback-URL example names the callback where this document says the simulator is.
      const path = o.path ?? '/callback';
      const post = (doc.paths as Record<string, { post?: { parameters?: { name: string; example?: string }[] } }>)[path]?.post;
      const param = post?.parameters?.find((p) => p.name === HEADER_NAME.callbackUrl);
      if (param) param.example = `${server.replace(/\/+$/, '')}${path}`;
    }
    return o.yaml ? stringify(doc, { aliasDuplicateObjects: false }) : `${JSON.stringify(doc, null, 2)}\n`;
  } finally {
    await app.close();
  }
}

export function openapiCommand(): Command {
  return namesItsHelp(new Command('openapi'))
    .description('Write the OpenAPI 3.1 document without starting a server')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--yaml', 'YAML instead of JSON', false)
    .option('--server <url>', `server URL in the document ("/" = relative to wherever the document is served from)`, DEFAULT_SERVER)
    .option('--path <path>', 'callback path, as given to `start --path`', '/callback')
    .action(async (o: { out?: string; yaml: boolean; server: string; path: string }) => {
      const fail = (message: string) => {
        console.error(`wallet-sim openapi: ${message}`);
        process.exitCode = 1;
      };
      const pathProblem = callbackPathProblem(o.path);
      if (pathProblem) return fail(`${pathProblem}\n(run wallet-sim openapi --help for its options)`);
      try {
        if (o.out) checkWritable(o.out, '--out');
        const text = await openapiText(o);
        if (!o.out) return void process.stdout.write(text);
        writeOutput(o.out, text, '--out');
        process.stderr.write(`wrote ${o.out}\n`);
      } catch (e) {
        if (!(e instanceof OutputFileError)) throw e;
        fail(e.message);
      }
    });
}
