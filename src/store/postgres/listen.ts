// LISTEN for the PostgreSQL store's notifications (ringmaster_events, ringmaster_control) on one dedicated
// connection that reconnects by itself. After every (re)connection `onReady` runs, so a consumer catches up
// by reading the store (a notification sent while disconnected is lost; the rows are not).
import pg from 'pg';
import { CHANNELS } from '../watchable.js';
import type { Channel, Subscription } from '../watchable.js';

/** Listens on `channel` at `url` until closed, reconnecting after 0.25, 0.5, 1, 2 s... (at most 5 s). */
export async function listen(url: string, channel: Channel, onNotice: (payload: unknown) => void, onReady?: () => void): Promise<Subscription> {
  let client: pg.Client | null = null;
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;
  let delay = 250;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, application_name: 'ringmaster-listen', keepAlive: true });
    c.on('notification', (msg) => {
      if (msg.channel !== CHANNELS[channel] || msg.payload === undefined) return;
      try {
        onNotice(JSON.parse(msg.payload) as unknown);
      } catch {
        // A payload that is not JSON is not ours.
      }
    });
    const lost = (): void => {
      if (client !== c) return;
      client = null;
      scheduleRetry();
    };
    c.on('error', lost);
    c.on('end', lost);
    await c.connect();
    await c.query(`LISTEN ${CHANNELS[channel]}`);
    if (closed) {
      await c.end();
      return;
    }
    client = c;
    delay = 250;
    onReady?.();
  };

  const scheduleRetry = (): void => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect().catch(() => {
        delay = Math.min(delay * 2, 5000);
        scheduleRetry();
      });
    }, delay);
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
