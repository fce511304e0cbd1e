// A child's output channel read into one reused buffer. The stdio pipes `spawn` makes are read by Node's stream
// machinery, which allocates a fresh 64 KiB buffer for every read and pushes it through a Readable: for an agent that
// floods its stdout (1 GiB) that was a large share of Ringmaster's CPU and of its garbage. Node's net sockets take an
// `onread` buffer instead (every read lands in it; nothing is allocated per read), but only sockets Node connects
// itself: so Ringmaster makes a pair of connected UNIX stream sockets through a listening socket of its own, gives
// the accepted end to the child as its stdio, and reads the other end.
//
// The listening socket is in Linux's abstract namespace (no file: one in the run's directory cost ~1 ms of CPU per
// iteration in file-system work), where anyone on the machine may connect: the connection handed to the child is
// the one that sends the random token our end sends first, and any other is closed unread past its first bytes.
// It listens until that connection is accepted, 2 s at most. Elsewhere than Linux: no pair (the caller pipes).
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';

/** Bytes of the token that tells our own connection from anyone else's. */
const TOKEN_BYTES = 16;
/** Longest wait for our own connection before giving up (the caller then pipes). */
const ACCEPT_MS = 2000;

/** A connected pair: `childEnd` to hand to `spawn` as a stdio stream (then destroyed), `reader` read by `onread`. */
export interface ReaderSocketPair {
  childEnd: Socket;
  reader: Socket;
}

/**
 * Connects a pair of UNIX stream sockets. Every chunk read from the child's end lands in `buffer` and is handed to
 * `onChunk` as a view of it, valid during the call only; `onChunk` returns false to stop reading until
 * `reader.resume()`. Null when the pair cannot be made: the caller falls back to a plain pipe.
 */
export function readerSocketPair(buffer: Buffer, onChunk: (chunk: Buffer) => boolean): Promise<ReaderSocketPair | null> {
  if (process.platform !== 'linux') return Promise.resolve(null);
  const path = `\0ringmaster-${randomBytes(12).toString('hex')}`;
  const token = randomBytes(TOKEN_BYTES);
  return new Promise((resolve) => {
    // Paused: the parent's copy of the child's end must never read what the child writes.
    const server = createServer({ pauseOnConnect: true });
    let reader: Socket | null = null;
    let settled = false;
    const settle = (pair: ReaderSocketPair | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      server.close();
      if (pair === null) reader?.destroy();
      else reader?.removeListener('error', fail);
      resolve(pair);
    };
    const fail = (): void => settle(null);
    const timer = setTimeout(fail, ACCEPT_MS);
    server.once('error', fail);
    server.on('connection', (accepted) => {
      withToken(accepted, token, (ours) => {
        if (!ours || settled || reader === null) accepted.destroy();
        else settle({ childEnd: accepted, reader });
      });
    });
    server.listen(path, () => {
      reader = connect({ path, onread: { buffer, callback: (n) => onChunk(buffer.subarray(0, n)) } });
      reader.once('error', fail);
      reader.write(token);
    });
  });
}

/** Reads the first bytes of an accepted connection (paused again after): `ours` when they are the token. */
function withToken(accepted: Socket, token: Buffer, then: (ours: boolean) => void): void {
  let got = Buffer.alloc(0);
  let done = false;
  const finish = (ours: boolean): void => {
    if (done) return;
    done = true;
    accepted.pause();
    accepted.removeListener('data', onData);
    then(ours);
  };
  const onData = (data: Buffer): void => {
    got = Buffer.concat([got, data]);
    if (got.length >= token.length) finish(got.equals(token));
  };
  accepted.on('data', onData);
  accepted.once('end', () => finish(false));
  accepted.once('error', () => finish(false));
  accepted.resume();
}
