// How a browser signs in and out: `/sign-in?code=` (a one-time code from `serve` or `serve --sign-in-link`) or
// `/?token=` (the token, for automation) start a session and redirect at once, so neither stays in the address bar;
// the session is an HttpOnly, SameSite=Lax cookie. POST /api/sign-out ends it. Nothing here is logged.
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { z } from 'zod';
import { checkOrigin, cookieValue, sessionCookieName, type AccessPolicy } from './auth.js';
import { SESSION_TTL_MS } from './credentials.js';
import { errorSchema } from './schemas.js';

const signedOutSchema = z.object({ signed_out: z.literal(true) }).meta({ id: 'SignedOut' });

const page = (title: string, text: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Ringmaster: ${title}</title></head><body style="font-family: sans-serif; max-width: 40em; margin: 4em auto"><h1>${title}</h1><p>${text}</p></body></html>`;

const NEW_LINK = "Run <code>ringmaster serve --sign-in-link</code> on the server's machine (same data directory) for a new link.";

/** The session cookie's header value (an empty value with Max-Age=0 clears it). */
function sessionCookie(host: string | undefined, id: string | null): string {
  const name = sessionCookieName(host);
  return id === null ? `${name}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0` : `${name}=${id}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`;
}

/** Mounts /sign-in and the `?token=` exchange on the app (before the dashboard). */
export function mountSignIn(app: Hono, access: AccessPolicy): void {
  app.get('/sign-in', (c) => {
    const refusal = checkOrigin(access, { method: 'GET', header: (name) => (name === 'host' ? c.req.header('host') : undefined) });
    if (refusal) return c.text(refusal.message, refusal.status);
    if (!access.credentials.required) return c.redirect('/', 303);
    // A HEAD (a link preview, a prefetch) must not use the code up.
    if (c.req.method === 'HEAD') return c.body(null, 200);
    if (!access.credentials.redeemCode(c.req.query('code') ?? '')) {
      return c.html(page('This sign-in link is not valid', `It was used already, or it is older than 5 minutes. ${NEW_LINK}`), 401);
    }
    c.header('Set-Cookie', sessionCookie(c.req.header('host'), access.credentials.createSession()));
    c.header('Cache-Control', 'no-store');
    return c.redirect('/', 303);
  });
  app.use('*', async (c, next) => {
    const url = new URL(c.req.url);
    const token = url.searchParams.get('token');
    if (c.req.method !== 'GET' || url.pathname.startsWith('/api/') || token === null || !access.credentials.required) return next();
    const refusal = checkOrigin(access, { method: 'GET', header: (name) => (name === 'host' ? c.req.header('host') : undefined) });
    if (refusal) return c.text(refusal.message, refusal.status);
    if (!access.credentials.checkToken(token)) return c.html(page('This token is not valid', `Check RINGMASTER_TOKEN, or sign in with a link instead. ${NEW_LINK}`), 401);
    url.searchParams.delete('token');
    c.header('Set-Cookie', sessionCookie(c.req.header('host'), access.credentials.createSession()));
    c.header('Cache-Control', 'no-store');
    return c.redirect(`${url.pathname}${url.search}`, 303);
  });
}

/** POST /api/sign-out (behind the API's access check). */
export function signOutApi(access: AccessPolicy): OpenAPIHono {
  const app = new OpenAPIHono();
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/sign-out',
      summary: "Ends this browser's session (its cookie is cleared); the token and other sessions stay valid",
      responses: { 200: { content: { 'application/json': { schema: signedOutSchema } }, description: 'signed out' }, 401: { content: { 'application/json': { schema: errorSchema } }, description: 'not signed in' } },
    }),
    (c) => {
      const session = cookieValue(c.req.header('cookie'), sessionCookieName(c.req.header('host')));
      if (session !== null) access.credentials.endSession(session);
      c.header('Set-Cookie', sessionCookie(c.req.header('host'), null));
      return c.json({ signed_out: true as const }, 200);
    },
  );
  return app;
}
