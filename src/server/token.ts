// The server's token: RINGMASTER_TOKEN, or one generated on the first start that needs it, shown once and stored
// only as its sha256 in the data directory (server-token.json, mode 0600).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir } from '../store/paths.js';
import { hashToken } from './auth.js';

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

/** Resolves the token; `required` when the server binds a non-loopback address; `renew` makes a new one. */
export function resolveServerToken(env: Readonly<Record<string, string | undefined>>, dataDir: string, required: boolean, renew = false): ServerToken {
  const fromEnv = env.RINGMASTER_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') return { hash: hashToken(fromEnv), source: 'env', generated: null };
  if (!required && !renew) return { hash: null, source: 'none', generated: null };
  const file = tokenFilePath(dataDir);
  if (!renew && existsSync(file)) {
    const parsed = storedSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return { hash: parsed.data.sha256, source: 'file', generated: null };
  }
  const token = randomBytes(32).toString('base64url');
  ensurePrivateDir(dataDir);
  writeFileSync(file, `${JSON.stringify({ sha256: hashToken(token), created_at: new Date().toISOString() })}\n`, { mode: 0o600 });
  return { hash: hashToken(token), source: 'generated', generated: token };
}
