// A child's output channel read into one reused buffer. The stdio pipes `spawn` makes are read by Node's stream
// machinery, which allocates a fresh 64 KiB buffer for every read and pushes it through a Readable: for an agent that
// floods its stdout (1 GiB) that was a large share of Ringmaster's CPU and of its garbage. Node's net sockets take an
// `onread` buffer instead (every read lands in it; nothing is allocated per read), but only sockets Node connects
// itself: so Ringmaster makes the pair of connected UNIX stream sockets through a listening socket of its own, in a
// private directory, gives the accepted end to the child as its stdio, and reads the other end. The listening socket
// lives until the one connection is accepted (its file is removed when it closes).
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';

/** Longest path a UNIX socket can be bound to (sun_path is 108 bytes on Linux, 104 on the BSDs, with its NUL). */
const MAX_SOCKET_PATH = 103;

/** A connected pair: `childEnd` to hand to `spawn` as a stdio stream (then destroyed), `reader` read by `onread`. */
export interface ReaderSocketPair {
  childEnd: Socket;
  reader: Socket;
}

/**
 * Connects a pair of UNIX stream sockets through a socket bound in `dir` (which must be private: only its owner may
 * connect there). Every chunk read from the child's end lands in `buffer` and is handed to `onChunk` as a view of
 * it, valid during the call only; `onChunk` returns false to stop reading until `reader.resume()`. Null when the
 * pair cannot be made (a path too long, a file system without sockets): the caller falls back to a plain pipe.
 */
export function readerSocketPair(dir: string, buffer: Buffer, onChunk: (chunk: Buffer) => boolean): Promise<ReaderSocketPair | null> {
  const path = join(dir, `.out-${randomBytes(6).toString('hex')}.sock`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return Promise.resolve(null);
  return new Promise((resolve) => {
    // Paused: the parent's copy of the child's end must never read what the child writes.
    const server = createServer({ pauseOnConnect: true });
    let reader: Socket | null = null;
    const fail = (): void => {
      server.close();
      reader?.destroy();
      resolve(null);
    };
    server.once('error', fail);
    server.once('connection', (childEnd) => {
      server.close();
      if (reader === null) {
        childEnd.destroy();
        return fail();
      }
      reader.removeListener('error', fail);
      resolve({ childEnd, reader });
    });
    server.listen(path, () => {
      reader = connect({ path, onread: { buffer, callback: (n) => onChunk(buffer.subarray(0, n)) } });
      reader.once('error', fail);
    });
  });
}
