// The server's credentials: the token (kept as its sha256), browser sessions (sha256 of their ids in
// server-sessions.json, mode 0600, so a restart keeps browsers signed in) and one-time sign-in codes (one file per
// code under sign-in/, named by the code's sha256, mode 0600). Codes are written by `serve` and by `serve
// --sign-in-link` run beside it, and redeemed once (the file is unlinked) within 5 minutes. Tokens are compared in
// constant time; nothing here ever holds a token, session id or code in clear on disk.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir } from '../os/private-files.js';

/** How long a sign-in code may be redeemed after it was made. */
export const SIGN_IN_CODE_TTL_MS = 5 * 60_000;
/** How long a browser session lasts without a new sign-in (30 days). */
export const SESSION_TTL_MS = 30 * 24 * 3600_000;

const sessionsSchema = z.object({ sessions: z.record(z.string().regex(/^[0-9a-f]{64}$/), z.number()) });
const codeSchema = z.object({ expires_at: z.number() });

/** sha256 hex of a secret. */
export function sha256(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new random secret (256 bits, base64url). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time equality of two sha256 hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && x.length === y.length && timingSafeEqual(x, y);
}

/** The directory of pending sign-in codes. */
export function signInDir(dataDir: string): string {
  return join(dataDir, 'sign-in');
}

/** Makes a one-time sign-in code valid for 5 minutes (stored as its hash); returns the code. */
export function mintSignInCode(dataDir: string, now = Date.now()): string {
  const dir = ensurePrivateDir(signInDir(dataDir));
  for (const name of readdirSync(dir)) {
    // Expired codes are swept here (never redeemable anyway).
    const file = join(dir, name);
    try {
      if (statSync(file).mtimeMs < now - 2 * SIGN_IN_CODE_TTL_MS) unlinkSync(file);
    } catch {
      // Redeemed meanwhile.
    }
  }
  const code = newSecret();
  writeFileSync(join(dir, sha256(code)), `${JSON.stringify({ expires_at: now + SIGN_IN_CODE_TTL_MS })}\n`, { mode: 0o600 });
  return code;
}

/** Who signs in: the token's hash (null: `--no-auth`, nothing required), the sessions, the codes. */
export class Credentials {
  readonly dataDir: string;
  readonly #tokenHash: string | null;
  readonly #now: () => number;
  readonly #sessions = new Map<string, number>();
  readonly #onEnded: Array<() => void> = [];

  constructor(dataDir: string, tokenHash: string | null, options: { now?: () => number; endSessions?: boolean } = {}) {
    this.dataDir = dataDir;
    this.#tokenHash = tokenHash;
    this.#now = options.now ?? Date.now;
    if (options.endSessions === true) this.#save();
    else this.#load();
  }

  /** False when the server runs with --no-auth (loopback only). */
  get required(): boolean {
    return this.#tokenHash !== null;
  }

  /** True when `token` is the server's token (constant time). */
  checkToken(token: string): boolean {
    return this.#tokenHash !== null && sameDigest(sha256(token), this.#tokenHash);
  }

  /** True when `id` names a live session. */
  checkSession(id: string): boolean {
    const expires = this.#sessions.get(sha256(id));
    return expires !== undefined && expires > this.#now();
  }

  /** Redeems a sign-in code once: true when it was valid (it is gone either way). */
  redeemCode(code: string): boolean {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(code)) return false;
    const file = join(signInDir(this.dataDir), sha256(code));
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
      unlinkSync(file); // Whoever unlinks it first has it: a code is used once.
    } catch {
      return false;
    }
    const parsed = codeSchema.safeParse(safeJson(text));
    return parsed.success && parsed.data.expires_at > this.#now();
  }

  /** Starts a browser session; returns its id (the cookie's value). */
  createSession(): string {
    const id = newSecret();
    this.#sessions.set(sha256(id), this.#now() + SESSION_TTL_MS);
    this.#save();
    return id;
  }

  /** Ends one session (sign-out); those listening hear of it. */
  endSession(id: string): void {
    if (!this.#sessions.delete(sha256(id))) return;
    this.#save();
    for (const listener of this.#onEnded) listener();
  }

  /** Calls `listener` whenever a session ends (the WebSocket clients signed in with it are let go). */
  onSessionEnded(listener: () => void): void {
    this.#onEnded.push(listener);
  }

  #file(): string {
    return join(this.dataDir, 'server-sessions.json');
  }

  #load(): void {
    if (!existsSync(this.#file())) return;
    const parsed = sessionsSchema.safeParse(safeJson(readFileSync(this.#file(), 'utf8')));
    if (!parsed.success) return;
    const now = this.#now();
    for (const [hash, expires] of Object.entries(parsed.data.sessions)) if (expires > now) this.#sessions.set(hash, expires);
  }

  #save(): void {
    ensurePrivateDir(this.dataDir);
    const now = this.#now();
    const sessions = Object.fromEntries([...this.#sessions].filter(([, expires]) => expires > now));
    const tmp = `${this.#file()}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ sessions })}\n`, { mode: 0o600 });
    renameSync(tmp, this.#file());
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
