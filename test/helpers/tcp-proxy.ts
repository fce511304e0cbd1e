// A loopback TCP proxy that can partition the network between its clients and a server: while partitioned,
// nothing crosses in either direction (bytes in flight are held, as TCP keeps retransmitting them) and new
// connections get no answer; heal() delivers what was held and forwards again. A partition can also start
// right after a given statement reaches the server (e.g. in the middle of a transaction).
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The proxy's loopback port. */
  readonly port: number;
  /** Cuts the network now. */
  partition(): void;
  /** Cuts it right after a client sends bytes containing `text` (those bytes still reach the server). */
  partitionAfter(text: string): Promise<void>;
  /** True while partitioned. */
  readonly partitioned: boolean;
  /** Delivers what was held, in order, and forwards again. */
  heal(): void;
  /** Closes every connection and the listener. */
  close(): Promise<void>;
}

interface Pipe {
  client: Socket;
  server: Socket | null;
  /** Held while partitioned: bytes towards the server and towards the client, in order. */
  up: Buffer[];
  down: Buffer[];
}

/** Starts a proxy on 127.0.0.1 (free port) to 127.0.0.1:`targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pipes = new Set<Pipe>();
  let cut = false;
  let trigger: { text: string; fired: () => void } | null = null;

  const connectUp = (pipe: Pipe): void => {
    const server = createConnection({ host: '127.0.0.1', port: targetPort });
    pipe.server = server;
    server.on('data', (chunk: Buffer) => (cut ? pipe.down.push(chunk) : pipe.client.write(chunk)));
    // A close is noticed by the other side only across a working network (heal() tells the rest).
    server.on('error', () => undefined);
    server.on('close', () => (cut ? undefined : pipe.client.end()));
    for (const chunk of pipe.up.splice(0)) server.write(chunk);
  };

  const listener: Server = createServer((client) => {
    const pipe: Pipe = { client, server: null, up: [], down: [] };
    pipes.add(pipe);
    client.on('data', (chunk: Buffer) => {
      if (cut || !pipe.server) {
        pipe.up.push(chunk);
        return;
      }
      pipe.server.write(chunk);
      if (trigger && chunk.toString('latin1').includes(trigger.text)) {
        const fired = trigger.fired;
        trigger = null;
        cut = true;
        fired();
      }
    });
    client.on('error', () => undefined);
    client.on('close', () => {
      if (cut) return;
      pipes.delete(pipe);
      pipe.server?.end();
    });
    // A connection made during a partition reaches the server only once it heals.
    if (!cut) connectUp(pipe);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    get partitioned() {
      return cut;
    },
    partition() {
      cut = true;
    },
    partitionAfter(text) {
      return new Promise<void>((resolve) => (trigger = { text, fired: resolve }));
    },
    heal() {
      cut = false;
      for (const pipe of pipes) {
        if (pipe.client.destroyed) {
          // The client gave up meanwhile: the server learns it now.
          pipes.delete(pipe);
          pipe.server?.end();
          continue;
        }
        if (!pipe.server) {
          connectUp(pipe);
          continue;
        }
        for (const chunk of pipe.up.splice(0)) pipe.server.write(chunk);
        for (const chunk of pipe.down.splice(0)) pipe.client.write(chunk);
        // The server closed it meanwhile (e.g. it ended an idle transaction): the client learns it now.
        if (pipe.server.destroyed) pipe.client.end();
      }
    },
    async close() {
      for (const pipe of pipes) {
        pipe.client.destroy();
        pipe.server?.destroy();
      }
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/** `url` with its port replaced by `port` (a database URL through the proxy). */
export function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}
