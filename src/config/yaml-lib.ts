// The yaml library, loaded on first use: a run without a config file never pays for its ~70 modules at start-up.
// It is CommonJS (its "node" export), so it loads synchronously, and it is the same instance an `import` gets.
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let lib: typeof Yaml | null = null;

/** The yaml library's exports. */
export function yamlLib(): typeof Yaml {
  lib ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return lib;
}
