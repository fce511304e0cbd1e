// Who may talk to the server. Every bind needs a credential (unless `serve --no-auth`, loopback only): the token
// as `Authorization: Bearer`, or a browser's session cookie. Loopback binds answer only to loopback host names
// (no DNS rebinding). A browser request from any origin but the server's own is refused on the API and the
// WebSocket, `Origin: null` (sandboxed frames, data: pages) included; there is no CORS.
import type { Credentials } from './credentials.js';

/** The server's access rules. */
export interface AccessPolicy {
  credentials: Credentials;
  /** True when the server listens on a loopback address only. */
  loopback: boolean;
}

/** A request as the access check sees it. */
export interface AccessRequest {
  method: string;
  header(name: string): string | undefined;
}

/** Refusal of a request: HTTP status, error code and message. */
export interface Refusal {
  status: 401 | 403;
  code: 'unauthorized' | 'forbidden';
  message: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for the addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Name of the session cookie for the port the browser reached us on: cookies are kept per host name, not per
 * port, so two servers on one machine would otherwise sign each other's browsers out.
 */
export function sessionCookieName(host: string | undefined): string {
  const port = /:(\d+)$/.exec(host ?? '')?.[1] ?? '80';
  return `ringmaster_session_${port}`;
}

/** The value of cookie `name` in a Cookie header (raw, never decoded; malformed parts are skipped). */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The bearer token of a request, if any. */
export function bearerToken(req: AccessRequest): string | null {
  const auth = req.header('authorization');
  return auth !== undefined && /^bearer /i.test(auth) ? auth.slice(7).trim() : null;
}

/** Null when the Host header names this server (and, from a browser, the page is our own), otherwise why not. */
export function checkOrigin(policy: AccessPolicy, req: AccessRequest): Refusal | null {
  const host = req.header('host') ?? '';
  const hostname = host.replace(/:\d+$/, '');
  if (policy.loopback && !isLoopbackHost(hostname)) {
    return { status: 403, code: 'forbidden', message: `host '${host}' is not this server's name (it answers to localhost and 127.0.0.1)` };
  }
  const origin = req.header('origin');
  if (origin !== undefined && originHost(origin) !== host.toLowerCase()) {
    return { status: 403, code: 'forbidden', message: `request from origin ${origin.slice(0, 200)} refused: only the server's own pages may call it` };
  }
  const site = req.header('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return { status: 403, code: 'forbidden', message: `${site} request refused: only the server's own pages may call it` };
  return null;
}

/** Null when the request may proceed (API or WebSocket upgrade), otherwise why not. */
export function checkAccess(policy: AccessPolicy, req: AccessRequest): Refusal | null {
  const refusal = checkOrigin(policy, req);
  if (refusal !== null || !policy.credentials.required) return refusal;
  const token = bearerToken(req);
  if (token !== null) return policy.credentials.checkToken(token) ? null : { status: 401, code: 'unauthorized', message: 'the token is not valid' };
  const session = cookieValue(req.header('cookie'), sessionCookieName(req.header('host')));
  if (session !== null && policy.credentials.checkSession(session)) return null;
  return {
    status: 401,
    code: 'unauthorized',
    message: session === null ? 'sign in first: a token (Authorization: Bearer <token>) or a session is required' : 'the session has ended: sign in again',
  };
}

function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}
