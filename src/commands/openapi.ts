import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { buildApp } from '../app.js';
import { DEFAULT_SCENARIO } from '../paths.js';
import { loadScenarioFile } from '../scenario/scenario.js';
import { Simulator } from '../simulator.js';
import { MemoryStore } from '../store/memory.js';

export function openapiCommand(): Command {
  return new Command('openapi')
    .description('Write the OpenAPI 3.1 document without starting a server')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--yaml', 'YAML instead of JSON', false)
    .action(async (o: { out?: string; yaml: boolean }) => {
      const sim = await Simulator.open(loadScenarioFile(DEFAULT_SCENARIO), new MemoryStore());
      const app = await buildApp({ sim });
      await app.ready();
      const text = o.yaml ? app.swagger({ yaml: true }) : `${JSON.stringify(app.swagger(), null, 2)}\n`;
      await app.close();
      if (o.out) writeFileSync(o.out, text);
      else process.stdout.write(text);
    });
}
