// The `yaml` package, required on first use instead of imported with the modules that parse YAML:
// its 72 modules then load only when a file is parsed (a config file, a skill, a workflow, a preset
// whose parse is not remembered), not on every start of the CLI (docs/benchmarks.md, "CLI start-up").
// yaml's Node entry is CommonJS, so the require is synchronous, as the parsers are.

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const requireHere = createRequire(import.meta.url);
let loaded: typeof Yaml | undefined;

/** The yaml module, loaded the first time it is asked for. */
export function yamlModule(): typeof Yaml {
  return (loaded ??= requireHere('yaml') as typeof Yaml);
}
