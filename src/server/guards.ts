// The API's gatekeepers, in order: who may call (origin, host, credential), how big a body may be (1 MiB, refused
// with 413 from its Content-Length before it is read, or as soon as a chunked body passes it) and what it must be
// (JSON: anything else is 415). Each answers with the API's error shape `{error: {code, message}}`.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { checkAccess, type AccessPolicy } from './auth.js';

/** Largest request body the API reads (1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Refuses a request without a credential, or from a page of another origin. */
export function accessGuard(access: AccessPolicy): MiddlewareHandler {
  return async (c, next) => {
    const refusal = checkAccess(access, { method: c.req.method, header: (name) => c.req.header(name) });
    if (refusal) return c.json({ error: { code: refusal.code, message: refusal.message } }, refusal.status);
    return next();
  };
}

/** Refuses a body over MAX_BODY_BYTES (413) before buffering it. */
export function sizeGuard(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => c.json({ error: { code: 'payload_too_large', message: `the request body is larger than ${maxBytes} bytes` } }, 413),
  });
}

/** Refuses a body that is not declared JSON (415): every API body is JSON. */
export function jsonGuard(): MiddlewareHandler {
  return async (c, next) => {
    const length = c.req.header('content-length');
    const hasBody = c.req.header('transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
    if (hasBody && !isJson(c.req.header('content-type'))) {
      const type = c.req.header('content-type');
      return c.json({ error: { code: 'unsupported_media_type', message: `the body must be JSON (Content-Type: application/json), not ${type === undefined ? 'undeclared' : `'${type.slice(0, 100)}'`}` } }, 415);
    }
    return next();
  };
}

function isJson(type: string | undefined): boolean {
  const essence = type?.split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(essence);
}
