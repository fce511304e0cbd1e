// A parsed YAML document's data, its aliases resolved within a bound: an alias bomb (anchors that expand to
// millions of nodes) or an alias to an anchor not yet set is the file's error, at the line of an alias, never a
// stack trace. Shared by the config files and the workflow files.
import type { Document, LineCounter } from 'yaml';
import { yamlLib } from './yaml-lib.js';

/** The most alias expansions a document may make (the yaml package's own default). */
export const MAX_ALIAS_COUNT = 100;

/** The data, or what is wrong and the line (1-based) of the first alias. */
export type YamlData = { ok: true; data: unknown } | { ok: false; line: number; message: string };

/** Resolves the document to plain data (see the header). */
export function yamlData(doc: Document, counter: LineCounter): YamlData {
  try {
    return { ok: true, data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    let offset = 0;
    const { visit } = yamlLib();
    visit(doc, {
      Alias(_key, node) {
        offset = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const text = error instanceof Error ? error.message : String(error);
    const message = /excessive alias count/i.test(text) ? `its aliases expand too much (more than ${MAX_ALIAS_COUNT} expansions): write the values out, or use fewer aliases` : text;
    return { ok: false, line: counter.linePos(offset).line, message: `invalid YAML: ${message}` };
  }
}
