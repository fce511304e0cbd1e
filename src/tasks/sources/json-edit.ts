// Surgical edits of JSON text: change, add or remove one property and leave every other byte alone
// (key order, spacing, indentation, line ends), so a tracker file the user formats by hand stays theirs.
// Parsing with offsets is jsonc-parser's (strict JSON: no comments, no trailing commas).
import { parseTree, findNodeAtLocation, printParseErrorCode, type Node, type ParseError, type JSONPath } from 'jsonc-parser';

/** A JSON text parsed with offsets, or its first syntax error with the offset where it is. */
export type ParsedJson = { ok: true; root: Node } | { ok: false; offset: number; problem: string };

const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false } as const;

const PROBLEMS: Record<string, string> = {
  InvalidSymbol: 'invalid JSON: unexpected character',
  InvalidNumberFormat: 'invalid JSON: bad number',
  PropertyNameExpected: 'invalid JSON: expected a property name in double quotes',
  ValueExpected: 'invalid JSON: expected a value',
  ColonExpected: "invalid JSON: expected ':'",
  CommaExpected: "invalid JSON: expected ','",
  CloseBraceExpected: "invalid JSON: expected '}'",
  CloseBracketExpected: "invalid JSON: expected ']'",
  EndOfFileExpected: 'invalid JSON: unexpected text after the value',
  InvalidCommentToken: 'invalid JSON: comments are not allowed',
  UnexpectedEndOfString: 'invalid JSON: unterminated string',
};

/** Parses JSON text keeping the offsets of every value. */
export function parseJson(text: string): ParsedJson {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, STRICT);
  const first = errors[0];
  if (first) {
    const code = printParseErrorCode(first.error);
    return { ok: false, offset: first.offset, problem: PROBLEMS[code] ?? `invalid JSON: ${code}` };
  }
  if (!root) return { ok: false, offset: 0, problem: 'invalid JSON: empty' };
  return { ok: true, root };
}

/** 1-based line of an offset in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** 1-based column of an offset in `text`. */
export function columnAt(text: string, offset: number): number {
  return offset - text.lastIndexOf('\n', offset - 1);
}

/** The node at `path`, or the deepest existing node on the way (for pointing at a field in an error). */
export function nearestNode(root: Node, path: JSONPath): Node {
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(root, path.slice(0, n));
    if (node) return node.parent?.type === 'property' ? node.parent : node;
  }
  return root;
}

function objectAt(text: string, path: JSONPath): Node {
  const parsed = parseJson(text);
  if (!parsed.ok) throw new Error(`cannot edit invalid JSON: ${parsed.problem}`);
  const node = path.length === 0 ? parsed.root : findNodeAtLocation(parsed.root, path);
  if (!node || node.type !== 'object') throw new Error(`no JSON object at ${JSON.stringify(path)}`);
  return node;
}

function end(node: Node): number {
  return node.offset + node.length;
}

function splice(text: string, from: number, to: number, insert: string): string {
  return text.slice(0, from) + insert + text.slice(to);
}

/**
 * Sets property `key` of the object at `path` to `value`. An existing value is replaced in place; a new
 * property is appended after the last one with the same separator and colon spacing as its neighbours.
 */
export function setJsonProperty(text: string, path: JSONPath, key: string, value: unknown): string {
  const object = objectAt(text, path);
  const props = object.children ?? [];
  const encoded = JSON.stringify(value);
  const existing = props.find((p) => p.children?.[0]?.value === key);
  const current = existing?.children?.[1];
  if (current) return splice(text, current.offset, end(current), encoded);
  const last = props[props.length - 1];
  const lastKey = last?.children?.[0];
  const lastValue = last?.children?.[1];
  if (!last || !lastKey || !lastValue) {
    return splice(text, object.offset + 1, object.offset + 1, `${JSON.stringify(key)}: ${encoded}`);
  }
  const before = props[props.length - 2];
  const separator = before ? text.slice(end(before), last.offset) : `,${text.slice(object.offset + 1, last.offset)}`;
  const colon = text.slice(end(lastKey), lastValue.offset);
  return splice(text, end(lastValue), end(lastValue), `${separator}${JSON.stringify(key)}${colon}${encoded}`);
}

/** Removes property `key` of the object at `path` with its separator; the text is unchanged when absent. */
export function removeJsonProperty(text: string, path: JSONPath, key: string): string {
  const object = objectAt(text, path);
  const props = object.children ?? [];
  const index = props.findIndex((p) => p.children?.[0]?.value === key);
  const prop = props[index];
  if (!prop) return text;
  const previous = props[index - 1];
  const next = props[index + 1];
  if (previous) return splice(text, end(previous), end(prop), '');
  if (next) return splice(text, prop.offset, next.offset, '');
  return splice(text, prop.offset, end(prop), '');
}
