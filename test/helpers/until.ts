// Waiting for something another process does, polled, with a generous safety-net timeout (never a timed assertion).
/** Resolves with the first truthy value of `probe` (polled every 50 ms); rejects after `timeoutMs` naming `what`. */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
