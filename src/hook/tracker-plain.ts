// The tracker's frontmatter in the shape Ringmaster writes it (one `key: value` line per key, each value null, a
// boolean, a whole number, a double-quoted JSON string or a plain word-like string), read and written by hand so
// that `hook stop`, run at every turn, does not load the YAML library and the schema (tracker-yaml.ts). Anything
// else (comments, lists, other quoting, a value the schema refuses) gives null here and goes through the YAML
// path, which decides. test/property/tracker-plain.test.ts checks that both paths agree wherever this one answers.
import type { TrackerFrontmatter } from './tracker-yaml.js';

/** A parsed tracker file. */
export interface Tracker {
  frontmatter: TrackerFrontmatter;
  body: string;
}

/** Raised when a tracker file exists but cannot be understood. */
export class TrackerError extends Error {
  readonly path: string;
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(`${path}: ${problem}`, options);
    this.name = 'TrackerError';
    this.path = path;
  }
}

/** Splits tracker text `---\n<yaml>\n---\n<body>` into its frontmatter text and body. Throws TrackerError. */
export function splitTracker(text: string, path: string): { yaml: string; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) throw new TrackerError(path, 'no YAML frontmatter (the file must start with a --- block)');
  return { yaml: match[1] ?? '', body: match[2] ?? '' };
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHOLE = /^(?:0|[1-9][0-9]{0,14})$/;
const JSON_STRING = /^"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$/;
/** Characters YAML does not take raw inside quotes the way JSON does (controls, separators, byte order mark). */
const UNQUOTABLE = /[\p{Cc}\u2028\u2029\ufeff]/u;
/** A string YAML's core schema reads as itself unquoted, and that the yaml library writes unquoted. */
const PLAIN = /^[A-Za-z][A-Za-z0-9_.,/()+=@%'-]*(?: [A-Za-z0-9_.,/()+=@%'-]+)*$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z$/;
const RESERVED = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** A lowercase word that starts with a digit, such as a run id (`0mwybzmwtl4t5`: base36 time, then random). */
const DIGIT_WORD = /^[0-9][0-9a-z]*$/;
/** The digit words YAML's core schema reads as numbers: decimal, octal (0o), hexadecimal (0x), exponent floats. */
const CORE_NUMBER = /^(?:[0-9]+|0o[0-7]+|0x[0-9a-f]+|[0-9]+e[0-9]+)$/;

function plainString(text: string): boolean {
  return (PLAIN.test(text) && !RESERVED.has(text)) || TIMESTAMP.test(text) || (DIGIT_WORD.test(text) && !CORE_NUMBER.test(text));
}

/** One value, or undefined when it is not in the plain shape. */
function plainValue(text: string): unknown {
  if (text === 'null') return null;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (WHOLE.test(text)) return Number(text);
  if (text.startsWith('"')) return JSON_STRING.test(text) && !UNQUOTABLE.test(text) ? (JSON.parse(text) as string) : undefined;
  return plainString(text) ? text : undefined;
}

type Check = (value: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const nonEmpty: Check = (v) => typeof v === 'string' && v !== '';
const orNull = (check: Check): Check => (v) => v === null || check(v);
const whole = (min: number): Check => (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;

/** The schema's keys in its order (the order its output has), each with its rule and its default when missing. */
const FIELDS: ReadonlyArray<readonly [string, Check, { value: unknown } | null]> = [
  ['iteration', whole(0), null],
  ['max_iterations', whole(1), null],
  ['completion_marker', nonEmpty, null],
  ['active', (v) => typeof v === 'boolean', null],
  ['started_at', isString, null],
  ['session_id', orNull(nonEmpty), { value: null }],
  ['task', isString, { value: '' }],
  ['continue_message', orNull(isString), { value: null }],
  ['ended_at', orNull(isString), { value: null }],
  ['stop_reason', orNull(isString), { value: null }],
  ['run_id', orNull(nonEmpty), { value: null }],
  ['verify', orNull(nonEmpty), { value: null }],
  ['verify_timeout_ms', whole(1), { value: 600_000 }],
];
const KNOWN = new Set(FIELDS.map(([key]) => key));

/** The frontmatter when its text is in the plain shape and valid, else null (the YAML path decides). */
export function plainFrontmatter(yaml: string): TrackerFrontmatter | null {
  const raw = new Map<string, unknown>();
  for (const line of yaml.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon < 0) return null;
    const key = line.slice(0, colon);
    const value = plainValue(line.slice(colon + 2));
    if (!KEY.test(key) || RESERVED.has(key) || value === undefined || raw.has(key) || key === '__proto__') return null;
    raw.set(key, value);
  }
  const out: Record<string, unknown> = {};
  for (const [key, check, fallback] of FIELDS) {
    const value = raw.has(key) ? raw.get(key) : fallback?.value;
    if (!raw.has(key) && fallback === null) return null;
    if (!check(value)) return null;
    out[key] = value;
  }
  for (const [key, value] of raw) if (!KNOWN.has(key)) out[key] = value;
  return out as TrackerFrontmatter;
}

function formatValue(value: unknown): string | null {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  if (typeof value === 'string') return plainString(value) ? value : null;
  return null;
}

/** The frontmatter's YAML text exactly as the yaml library writes it, when every value is plain; else null. */
export function plainYaml(frontmatter: TrackerFrontmatter): string | null {
  let text = '';
  for (const [key, value] of Object.entries(frontmatter)) {
    const formatted = formatValue(value);
    if (formatted === null || !KEY.test(key) || RESERVED.has(key)) return null;
    text += `${key}: ${formatted}\n`;
  }
  return text;
}
