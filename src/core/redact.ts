// Redaction of secrets: the values of secret-looking environment variables (API keys, tokens, passwords) are
// replaced by `[REDACTED:NAME]` in everything Ringmaster writes or prints, and the values of secret-looking
// command-line options by `[REDACTED]`. Pure: the environment comes in as a value.

/** Names of variables whose values are secrets: API keys, tokens, secrets, passwords, credentials, webhooks (their URLs carry a token). */
const SECRET_NAME = /(^|_)(API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET(_?KEY)?|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|AUTH(_?TOKEN)?|KEY)(_|$)|PASSWORD|SECRET|TOKEN|APIKEY|WEBHOOK/i;

/** Secret-looking names that hold no secret (paths, sockets, the working directory). */
const NOT_SECRET = new Set(['PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'XAUTHORITY', 'GPG_AGENT_INFO', 'KEYTIMEOUT']);

/** Values shorter than this are not redacted (too common to be told from ordinary text). */
export const MIN_SECRET_LENGTH = 8;

/** True for the name of an environment variable whose value should never be written or printed. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET.has(name.toUpperCase());
}

/** A secret value and the name that says where it came from. */
export interface Secret {
  name: string;
  value: string;
}

/** The secrets of an environment: values of secret-looking variables, longest first (a key that contains another is replaced whole). */
export function secretsOf(env: Readonly<Record<string, string | undefined>>): Secret[] {
  const byValue = new Map<string, string>();
  // Run before every agent: no array of entries, and most names are told apart by the length of their value.
  for (const name in env) {
    const value = env[name];
    if (value === undefined || value.length < MIN_SECRET_LENGTH || !isSecretName(name)) continue;
    // Surrounding spaces are not part of the secret (and a value of spaces is none).
    const trimmed = value.trim();
    if (trimmed.length < MIN_SECRET_LENGTH || byValue.has(trimmed)) continue;
    byValue.set(trimmed, name);
  }
  return [...byValue].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
}

/** Values of secret-looking options in an argv (`--api-key X`, `--token=X`), as secrets named by their option. */
export function secretsOfArgv(argv: readonly string[]): Secret[] {
  const found: Secret[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    if (arg.startsWith('-') && eq > 0 && SECRET_OPTION.test(arg.slice(0, eq)) && arg.length - eq - 1 >= MIN_SECRET_LENGTH) {
      found.push({ name: arg.slice(0, eq), value: arg.slice(eq + 1) });
    } else if (SECRET_OPTION.test(arg) && (argv[i + 1] ?? '').length >= MIN_SECRET_LENGTH) {
      found.push({ name: arg, value: argv[i + 1] ?? '' });
      i += 1;
    }
  }
  return found;
}

/** Secrets of an agent process: those of its environment and of its command line, longest first, each once. */
export function secretsOfProcess(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Secret[] {
  const all = [...secretsOf(env), ...secretsOfArgv(argv)];
  const seen = new Set<string>();
  return all.filter((s) => !seen.has(s.value) && seen.add(s.value)).sort((a, b) => b.value.length - a.value.length);
}

/** The text that replaces a secret. */
export function marker(name: string): string {
  return `[REDACTED:${name}]`;
}

/** Replaces secrets in text. `secrets` tells how many there are (0: the function returns its input). */
export interface Redactor {
  (text: string): string;
  readonly secrets: readonly Secret[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A redactor for the secrets of `env`. */
export function redactor(env: Readonly<Record<string, string | undefined>>): Redactor {
  return redactorOf(secretsOf(env));
}

/** A redactor for the given secrets (longest first). */
export function redactorOf(secrets: readonly Secret[]): Redactor {
  if (secrets.length === 0) return Object.assign((text: string) => text, { secrets });
  const names = new Map(secrets.map((s) => [s.value, s.name]));
  const pattern = new RegExp(secrets.map((s) => escapeRegExp(s.value)).join('|'), 'g');
  const redact = (text: string): string => (text.length === 0 ? text : text.replace(pattern, (found) => marker(names.get(found) ?? 'SECRET')));
  return Object.assign(redact, { secrets });
}

/** A JSON-like value with every string (keys included) redacted; other values unchanged. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (redact.secrets.length === 0) return value;
  return walk(value, redact) as T;
}

function walk(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, redact));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redact(k)] = walk(v, redact);
    return out;
  }
  return value;
}

/** Options whose value is a secret (when it is at least MIN_SECRET_LENGTH long): `--api-key VALUE`, `--token=VALUE`, `--github-token VALUE`. */
const SECRET_OPTION = /^--?([a-z0-9]+[-_])*(api[-_]?key|apikey|key|token|secret|password|passwd|passphrase|credentials?|auth)$/i;

/**
 * An argv with secrets redacted: values of secret-looking environment variables, and the value of each
 * secret-looking option (`--api-key X`, `--token=X`) as `[REDACTED]`. For storing and printing, never for running.
 */
export function redactArgv(argv: readonly string[], redact: Redactor): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = redact(argv[i] ?? '');
    const eq = arg.indexOf('=');
    const value = eq > 0 ? arg.slice(eq + 1) : '';
    if (arg.startsWith('-') && eq > 0 && SECRET_OPTION.test(arg.slice(0, eq)) && value.length >= MIN_SECRET_LENGTH && !value.includes('[REDACTED')) {
      out.push(`${arg.slice(0, eq + 1)}[REDACTED]`);
    } else if (SECRET_OPTION.test(arg) && (argv[i + 1] ?? '').length >= MIN_SECRET_LENGTH) {
      out.push(arg);
      const next = redact(argv[i + 1] ?? '');
      out.push(next.includes('[REDACTED') ? next : '[REDACTED]');
      i += 1;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * Puts back the secrets of a stored argv from the current environment (`[REDACTED:NAME]` -> $NAME). Returns
 * the argv, or the names of the secrets that cannot be restored (not set now, or an anonymous `[REDACTED]`).
 */
export function restoreArgv(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): { argv: string[]; missing: string[] } {
  const missing = new Set<string>();
  const restored = argv.map((arg) => {
    if (arg.includes('[REDACTED]')) missing.add('an option value');
    return restoreText(arg, env, missing);
  });
  return { argv: restored, missing: [...missing] };
}

/** `[REDACTED:NAME]` -> $NAME in one text; names that are not set now are added to `missing`. */
function restoreText(text: string, env: Readonly<Record<string, string | undefined>>, missing: Set<string>): string {
  return text.replace(/\[REDACTED:([^\]]+)\]/g, (found, name: string) => {
    const value = env[name]?.trim();
    if (value === undefined || value === '') {
      missing.add(name);
      return found;
    }
    return value;
  });
}

/** Like restoreArgv for every string of a JSON-like value (keys are left as they are). */
export function restoreDeep<T>(value: T, env: Readonly<Record<string, string | undefined>>): { value: T; missing: string[] } {
  const missing = new Set<string>();
  const walkRestore = (v: unknown): unknown => {
    if (typeof v === 'string') return v.includes('[REDACTED:') ? restoreText(v, env, missing) : v;
    if (Array.isArray(v)) return v.map(walkRestore);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walkRestore(x)]));
    return v;
  };
  return { value: walkRestore(value) as T, missing: [...missing] };
}

/** Length of the longest end of `text` that is the beginning of a secret (it may continue in the next chunk). */
function heldBack(endsWithPrefix: (prefixLength: number, secret: number) => boolean, secrets: readonly { length: number }[], available: number): number {
  let longest = 0;
  secrets.forEach((secret, index) => {
    for (let k = Math.min(secret.length - 1, available); k > longest; k--) {
      if (endsWithPrefix(k, index)) {
        longest = k;
        break;
      }
    }
  });
  return longest;
}

/**
 * Length of the longest end of `data` that is the beginning of a secret (as heldBack), found by looking for each
 * secret's first byte in the last bytes of `data` only: no view nor comparison per candidate length.
 */
function heldBackBytes(data: Buffer, values: readonly Buffer[]): number {
  let longest = 0;
  for (const value of values) {
    const first = value[0];
    if (first === undefined) continue;
    // The earliest start wins (the longest end); an end no longer than `longest` cannot win.
    for (let at = data.indexOf(first, Math.max(0, data.length - value.length + 1)); at >= 0 && data.length - at > longest; at = data.indexOf(first, at + 1)) {
      if (data.compare(value, 0, data.length - at, at) === 0) {
        longest = data.length - at;
        break;
      }
    }
  }
  return longest;
}

/** A redactor for a stream of text chunks: a secret split across chunks is still replaced. */
export interface StreamRedactor<T> {
  /** The chunk to pass on (an end that may begin a secret is held back until the next chunk). */
  push(chunk: T): T;
  /** What was held back, at the end of the stream. */
  end(): T;
}

/** Streaming redaction of text (e.g. an agent's output shown live). */
export function textStreamRedactor(redact: Redactor): StreamRedactor<string> {
  const values = redact.secrets.map((s) => s.value);
  if (values.length === 0) return { push: (chunk) => chunk, end: () => '' };
  const pattern = new RegExp(values.map(escapeRegExp).join('|'), 'g');
  let carry = '';
  return {
    push(chunk) {
      const text = carry + chunk;
      // Held back: an end that may begin a secret (even where a shorter secret is found: it may be a longer one).
      let cut = text.length - heldBack((k, i) => text.endsWith((values[i] ?? '').slice(0, k)), values, text.length);
      for (const m of text.matchAll(pattern)) if (m.index < cut && m.index + m[0].length > cut) cut = m.index;
      carry = text.slice(cut);
      return redact(text.slice(0, cut));
    },
    end() {
      const rest = carry;
      carry = '';
      return redact(rest);
    },
  };
}

/** Streaming redaction of raw bytes (e.g. an iteration's log): the bytes around the secrets are kept as they are. */
export function byteStreamRedactor(secrets: readonly Secret[]): StreamRedactor<Buffer> {
  const values = secrets.map((s) => Buffer.from(s.value, 'utf8'));
  const markers = secrets.map((s) => Buffer.from(marker(s.name), 'utf8'));
  if (values.length === 0) return { push: (chunk) => chunk, end: () => Buffer.alloc(0) };
  let carry = Buffer.alloc(0);
  /** The occurrences in `data`, earliest first (the longest where several start at one place), not overlapping. */
  const find = (data: Buffer): Array<{ at: number; which: number }> => {
    const found: Array<{ at: number; which: number }> = [];
    let pos = 0;
    for (;;) {
      let at = -1;
      let which = -1;
      values.forEach((value, i) => {
        const index = data.indexOf(value, pos);
        if (index >= 0 && (at < 0 || index < at)) {
          at = index;
          which = i;
        }
      });
      if (at < 0) return found;
      found.push({ at, which });
      pos = at + (values[which]?.length ?? 0);
    }
  };
  const release = (data: Buffer, upTo: number, found: ReadonlyArray<{ at: number; which: number }>): Buffer => {
    if (found.length === 0) return data.subarray(0, upTo);
    const parts: Buffer[] = [];
    let pos = 0;
    for (const { at, which } of found) {
      parts.push(data.subarray(pos, at), markers[which] ?? Buffer.alloc(0));
      pos = at + (values[which]?.length ?? 0);
    }
    parts.push(data.subarray(pos, upTo));
    return Buffer.concat(parts);
  };
  return {
    push(chunk) {
      const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      // Held back: an end that may begin a secret (even where a shorter secret is found: it may be a longer one).
      let cut = data.length - heldBackBytes(data, values);
      const found = find(data);
      for (const { at, which } of found) if (at < cut && at + (values[which]?.length ?? 0) > cut) cut = at;
      carry = Buffer.from(data.subarray(cut));
      return release(data, cut, found.filter(({ at, which }) => at + (values[which]?.length ?? 0) <= cut));
    },
    end() {
      const rest = carry;
      carry = Buffer.alloc(0);
      return release(rest, rest.length, find(rest));
    },
  };
}
