// A tiny HTTP server base for the fake model servers: 127.0.0.1, free port, JSON bodies, SSE, clean close.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running fake server. `close()` ends open connections too. */
export interface FakeServer {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Handles one request whose body was read (raw text; `json` is the parsed body or null). */
export type FakeHandler = (req: IncomingMessage, res: ServerResponse, body: string, json: unknown) => Promise<void>;

/** Starts a server on 127.0.0.1 with a free port. It is unref'd: it never keeps a test process alive. */
export async function startFakeHttp(handler: FakeHandler): Promise<FakeServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const json = parseJson(body);
      handler(req, res, body, json).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Parses a request body as JSON; null when empty or not JSON. */
function parseJson(body: string): unknown {
  if (body.length === 0) return null;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** Writes one SSE `data:` event holding JSON (or a raw string such as `[DONE]`). */
export function sendSse(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** Answers with a JSON body and a status. */
export function sendJson(res: ServerResponse, status: number, data: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(data));
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
