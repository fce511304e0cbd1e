// The WebSocket handshake's gate: only /api/ws, only with a credential, only from the server's own pages (or a
// client that is not a browser). A request target that is not a path, or any header, never throws from here.
import type { IncomingMessage } from 'node:http';
import { bearerToken, checkAccess, cookieValue, sessionCookieName, type AccessPolicy } from './auth.js';

/** Why a handshake is refused: status line and a one-line text body. */
export interface UpgradeRefusal {
  status: number;
  reason: string;
  message: string;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** Null when the upgrade may proceed. */
export function upgradeRefusal(access: AccessPolicy, req: IncomingMessage): UpgradeRefusal | null {
  const target = req.url ?? '';
  let pathname: string;
  try {
    if (!target.startsWith('/')) throw new Error('not a path');
    pathname = new URL(`http://localhost${target}`).pathname;
  } catch {
    return { status: 400, reason: REASONS[400] ?? '', message: 'the request target is not a valid path' };
  }
  if (pathname !== '/api/ws') return { status: 404, reason: REASONS[404] ?? '', message: 'no WebSocket here (it is /api/ws)' };
  const refusal = checkAccess(access, { method: 'GET', header: (name) => headerOf(req, name) });
  return refusal === null ? null : { status: refusal.status, reason: REASONS[refusal.status] ?? '', message: refusal.message };
}

/** The browser session an accepted handshake was let in by, or null (a token, or no credential asked). */
export function upgradeSession(access: AccessPolicy, req: IncomingMessage): string | null {
  const request = { method: 'GET', header: (name: string) => headerOf(req, name) };
  if (!access.credentials.required || bearerToken(request) !== null) return null;
  return cookieValue(request.header('cookie'), sessionCookieName(request.header('host')));
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
