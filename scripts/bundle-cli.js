// Build step after tsc (npm run build): bundles the CLI (dist/cli/main.js and everything it imports, zod and yaml
// included) into dist/bundle/, one chunk per set of modules loaded together, so that a short command such as
// `hook stop` or a one-iteration `run` loads a few files instead of ~300 (module resolution and loading were most
// of their start-up; bench/FINDINGS.md). The modules only a `run` loads share one chunk (runGroupPlugin), and the
// entry may export more than its own exports (main.js takes in some small shared modules). bin/ringmaster.js runs
// the bundle when it is at least as new as dist/cli/main.js, else dist/ as tsc wrote it. The library
// (dist/index.js) and the entry files of the store's worker thread and of the iteration helpers stay unbundled.
// Every `import.meta.url` keeps the value it has in dist/ (files next to a module, the worker files, the package's
// data/ and procedures/ are found where they always were). rolldown comes with vite.
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
/** Dependencies put into the bundle (many small files each); the others are loaded from node_modules as before. */
const BUNDLED = new Set(['zod', 'yaml']);

function packageOf(id) {
  return id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0];
}

/**
 * The modules a one-iteration `run` loads that `hook stop` never can (nor main.js before a command is chosen): one
 * chunk instead of ~24 small ones (each ES module costs ~0.2 ms of CPU to load; bench/FINDINGS.md). Computed from
 * the module graph once it is built: the static closure of the run command, minus main.js's static closure and
 * everything the hook command can reach (statically or dynamically). That second set is closed under static
 * imports, so no module outside the group imports one inside it from a chunk the group imports: no cycle.
 */
const runOnly = new Set();

function runGroupPlugin() {
  return {
    name: 'run-group',
    buildEnd() {
      const info = (id) => this.getModuleInfo(id);
      const closure = (roots, withDynamic) => {
        const seen = new Set();
        const todo = [...roots];
        while (todo.length > 0) {
          const id = todo.pop();
          if (seen.has(id) || !info(id)) continue;
          seen.add(id);
          todo.push(...info(id).importedIds, ...(withDynamic ? info(id).dynamicallyImportedIds : []));
        }
        return seen;
      };
      const main = join(dist, 'cli', 'main.js');
      const excluded = new Set([...closure([main], false), ...closure([join(dist, 'cli', 'commands', 'hook.js')], true)]);
      for (const id of closure([join(dist, 'cli', 'commands', 'run.js')], false)) {
        if (id.startsWith(dist + '/') && !excluded.has(id)) runOnly.add(id);
      }
    },
  };
}

rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  preserveEntrySignatures: 'allow-extension',
  input: { main: join(dist, 'cli', 'main.js') },
  platform: 'node',
  logLevel: 'warn',
  external: (id) => id.startsWith('node:') || (!id.startsWith('.') && !id.startsWith('/') && !BUNDLED.has(packageOf(id))),
  plugins: [
    runGroupPlugin(),
    {
      name: 'keep-module-urls',
      transform(code, id) {
        if (!id.startsWith(dist + '/') || !code.includes('import.meta.url')) return null;
        // The chunks live in dist/bundle/: from there, the URL of the module as it is in dist/.
        return code.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative(out, id))}, import.meta.url).href`);
      },
    },
  ],
});
await bundle.write({
  dir: out,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  sourcemap: false,
  codeSplitting: { groups: [{ name: 'run', test: (id) => runOnly.has(id), includeDependenciesRecursively: false }] },
});
await bundle.close();
