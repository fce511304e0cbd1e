// The API's schemas are the dashboard's types: web/ bundles them for the browser, so every module they import
// (followed to the end) may import only zod and other such modules, never Node's built-ins or a server library.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** Every module reached from `entry` through its imports (type-only ones included), and what else each imports. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const queue = [resolve(ROOT, entry)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (graph.has(file)) continue;
    const outside: string[] = [];
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.')) queue.push(join(dirname(file), fileName).replace(/\.js$/, '.ts'));
      else outside.push(fileName);
    }
    graph.set(relative(ROOT, file), outside);
  }
  return graph;
}

describe('schemas the dashboard bundles', () => {
  it.each(['src/server/schemas.ts', 'src/manager/run-request.ts', 'src/config/settings.ts'])('%s imports nothing but zod, all the way down', (entry) => {
    const graph = importGraph(entry);
    const foreign = [...graph].flatMap(([file, imports]) => imports.filter((name) => name !== 'zod').map((name) => `${file} imports ${name}`));
    expect(foreign).toEqual([]);
    expect(graph.size).toBeGreaterThan(entry.endsWith('schemas.ts') ? 4 : 0);
  });
});
