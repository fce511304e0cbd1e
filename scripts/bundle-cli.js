// Build step after tsc (npm run build): bundles the CLI (dist/cli/main.js and everything it imports, zod and yaml
// included) into dist/bundle/, one chunk per set of modules loaded together, so that a short command such as
// `hook stop` or a one-iteration `run` loads a few files instead of ~300 (module resolution and loading were most
// of their start-up; bench/FINDINGS.md). bin/ringmaster.js runs the bundle when it is at least as new as
// dist/cli/main.js, else dist/ as tsc wrote it. The library (dist/index.js) and the worker threads' entry
// files stay unbundled. Every `import.meta.url` keeps the value it has in dist/ (files next to a module, the
// worker files, the package's data/ and procedures/ are found where they always were). rolldown comes with vite.
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

rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: join(dist, 'cli', 'main.js') },
  platform: 'node',
  logLevel: 'warn',
  external: (id) => id.startsWith('node:') || (!id.startsWith('.') && !id.startsWith('/') && !BUNDLED.has(packageOf(id))),
  plugins: [
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
await bundle.write({ dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: false });
await bundle.close();
