// Whether the sandbox tests run here: they skip only where bubblewrap is not installed (CI installs it); where it is
// installed but cannot work (user namespaces blocked), they run and fail with the reason `doctor` gives.
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { sandboxSupport } from '../../src/sandbox/probe.js';

const support = sandboxSupport();

/** True when bubblewrap is absent (the sandbox tests skip). */
export const NO_BWRAP = support.version === null;

/** The sandbox tests' title suffix: why they are skipped, or nothing. */
export const SKIP_REASON = NO_BWRAP ? ` (skipped: ${support.problem ?? ''})` : '';

/** What this machine supports (caps included). */
export const SANDBOX_SUPPORT = support;

/**
 * A TCP port on the host's loopback that no sandbox policy allows (the escape agent tries it): a server that
 * answers `reply` and closes, open for the file's tests. Read `port` inside a test.
 */
export function useHostPort(reply = ''): { readonly port: number } {
  let server: Server | null = null;
  let port = 0;
  beforeAll(async () => {
    const listening = createServer((socket) => socket.end(reply));
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    port = (listening.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });
  return {
    get port() {
      return port;
    },
  };
}
