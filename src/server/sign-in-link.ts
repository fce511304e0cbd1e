// The hand-off between `serve` and `serve --sign-in-link` run beside it: the server writes server.json (mode 0600:
// its URL and pid) in its data directory; --sign-in-link reads it, checks that the pid is alive, and mints a
// one-time code there (credentials.ts) that the running server redeems. The link goes to the terminal that asked
// for it, never to the server's log.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import { ensurePrivateDir } from '../os/private-files.js';
import { mintSignInCode } from './credentials.js';
import { processAlive } from '../os/process-group.js';

const infoSchema = z.object({ url: z.string(), pid: z.number().int(), auth: z.boolean() });

/** Where a running server says where it listens. */
export function serverInfoPath(dataDir: string): string {
  return join(dataDir, 'server.json');
}

/** Records the running server (at start). */
export function writeServerInfo(dataDir: string, info: z.infer<typeof infoSchema>): void {
  ensurePrivateDir(dataDir);
  writeFileSync(serverInfoPath(dataDir), `${JSON.stringify(info)}\n`, { mode: 0o600 });
}

/** Removes the record if it is still this process's (at stop). */
export function removeServerInfo(dataDir: string, pid: number): void {
  if (readServerInfo(dataDir)?.pid === pid) rmSync(serverInfoPath(dataDir), { force: true });
}

/** A new one-time sign-in link to the server at `url`. */
export function signInLinkFor(dataDir: string, url: string): string {
  return `${url}/sign-in?code=${mintSignInCode(dataDir)}`;
}

/** A new sign-in link to the server running over `dataDir`; a UserError when none is. */
export function signInLink(dataDir: string): string {
  const info = readServerInfo(dataDir);
  if (info === null || !processAlive(info.pid)) throw new UserError(`no 'ringmaster serve' is running over the data directory ${dataDir} (start one; it prints a sign-in link)`);
  if (!info.auth) throw new UserError(`the server at ${info.url} runs with --no-auth: open ${info.url}/ without signing in`);
  return signInLinkFor(dataDir, info.url);
}

function readServerInfo(dataDir: string): z.infer<typeof infoSchema> | null {
  try {
    const parsed = infoSchema.safeParse(JSON.parse(readFileSync(serverInfoPath(dataDir), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

