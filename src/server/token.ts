// The server's token: RINGMASTER_TOKEN, or one generated on the first start, shown once and stored only as its
// sha256 in the data directory (server-token.json, mode 0600).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { ensurePrivateDir } from '../store/paths.js';
import { newSecret, sha256 } from './credentials.js';

const storedSchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), created_at: z.string() });

/** Where the hash of the generated token lives. */
export function tokenFilePath(dataDir: string): string {
  return join(dataDir, 'server-token.json');
}

/** The token policy: the hash to check, and a newly generated token to show once (null otherwise). */
export interface ServerToken {
  hash: string | null;
  source: 'env' | 'file' | 'generated' | 'none';
  generated: string | null;
}

/** The shortest RINGMASTER_TOKEN taken (a generated token is 43 characters). */
export const MIN_TOKEN_LENGTH = 16;

/** Resolves the token; `required` is false only for `serve --no-auth`; `renew` makes a new one. */
export function resolveServerToken(env: Readonly<Record<string, string | undefined>>, dataDir: string, required: boolean, renew = false): ServerToken {
  if (!required) return { hash: null, source: 'none', generated: null };
  const fromEnv = env.RINGMASTER_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    // Anyone who reaches the port may guess: a token must not be guessable in a lifetime of tries.
    if (fromEnv.length < MIN_TOKEN_LENGTH) throw new UsageError(`RINGMASTER_TOKEN is ${fromEnv.length} characters: a server token needs at least ${MIN_TOKEN_LENGTH} (e.g. 'openssl rand -hex 16'), or leave it unset for a generated one`);
    return { hash: sha256(fromEnv), source: 'env', generated: null };
  }
  const file = tokenFilePath(dataDir);
  if (!renew && existsSync(file)) {
    const parsed = storedSchema.safeParse(parseJson(readFileSync(file, 'utf8')));
    if (parsed.success) return { hash: parsed.data.sha256, source: 'file', generated: null };
  }
  const token = newSecret();
  ensurePrivateDir(dataDir);
  writeFileSync(file, `${JSON.stringify({ sha256: sha256(token), created_at: new Date().toISOString() })}\n`, { mode: 0o600 });
  return { hash: sha256(token), source: 'generated', generated: token };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
