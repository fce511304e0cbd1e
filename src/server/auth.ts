// Who may talk to the server. Loopback binds answer only to loopback host names (no DNS rebinding); any other
// bind needs a token. Browsers' cross-origin state-changing requests and WebSocket upgrades are refused; no CORS.
import { createHash, timingSafeEqual } from 'node:crypto';

/** The server's access rules. */
export interface AccessPolicy {
  /** sha256 (hex) of the token every request must carry, or null when none is required. */
  tokenHash: string | null;
  /** True when the server listens on a loopback address only. */
  loopback: boolean;
}

/** A request as the access check sees it. */
export interface AccessRequest {
  method: string;
  url: URL;
  header(name: string): string | undefined;
}

/** Refusal of a request: HTTP status, error code and message. */
export interface Refusal {
  status: 401 | 403;
  code: 'unauthorized' | 'forbidden';
  message: string;
}

/** Name of the cookie that carries the token for a browser (set by `/?token=...`). */
export const TOKEN_COOKIE = 'ringmaster_token';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** sha256 hex of a token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** True for the addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The token a request carries: Authorization: Bearer, the dashboard's cookie, or ?token= (WebSocket, first page load). */
export function presentedToken(req: AccessRequest): string | null {
  const auth = req.header('authorization');
  if (auth?.toLowerCase().startsWith('bearer ')) return auth.slice(7).trim();
  const cookie = req.header('cookie');
  if (cookie) {
    for (const part of cookie.split(';')) {
      const [name, ...rest] = part.trim().split('=');
      if (name === TOKEN_COOKIE) return decodeURIComponent(rest.join('='));
    }
  }
  return req.url.searchParams.get('token');
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Null when the request may proceed, otherwise why not. `upgrade`: a WebSocket handshake. */
export function checkAccess(policy: AccessPolicy, req: AccessRequest, upgrade = false): Refusal | null {
  const host = req.header('host') ?? '';
  const hostname = host.replace(/:\d+$/, '');
  if (policy.loopback && !isLoopbackHost(hostname)) {
    return { status: 403, code: 'forbidden', message: `host '${host}' is not this server's name (it answers to localhost and 127.0.0.1)` };
  }
  const origin = req.header('origin');
  const changes = upgrade || !['GET', 'HEAD', 'OPTIONS'].includes(req.method.toUpperCase());
  if (changes && origin !== undefined && origin !== 'null') {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = '';
    }
    if (originHost !== host) return { status: 403, code: 'forbidden', message: `cross-origin request from ${origin} refused` };
  }
  if (changes && req.header('sec-fetch-site') === 'cross-site') return { status: 403, code: 'forbidden', message: 'cross-site request refused' };
  if (policy.tokenHash !== null) {
    const token = presentedToken(req);
    if (token === null || token === '') return { status: 401, code: 'unauthorized', message: 'a token is required (Authorization: Bearer <token>)' };
    if (!sameHash(hashToken(token), policy.tokenHash)) return { status: 401, code: 'unauthorized', message: 'the token is not valid' };
  }
  return null;
}
