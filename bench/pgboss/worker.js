// A pg-boss worker process for bench/pgboss-eval.js: works one queue, prints one JSON line per event
// ({ev:'ready'|'start'|'abort'|'done', id, retry, t}) with wall-clock ms so the parent can time takeovers and cancels.
// Usage: node bench/pgboss/worker.js '<json config>'  (url, queue, refresh, polling, notify, name)
import { PgBoss } from 'pg-boss';

const config = JSON.parse(process.argv[2]);
const say = (ev, extra = {}) => process.stdout.write(`${JSON.stringify({ ev, worker: config.name, t: Date.now(), ...extra })}\n`);

const boss = new PgBoss({
  connectionString: config.url,
  max: 4,
  superviseIntervalSeconds: 1,
  monitorIntervalSeconds: 1,
  useListenNotify: config.notify ?? true,
  schedule: false,
  registerInstance: false,
});
boss.on('error', (error) => process.stderr.write(`pg-boss error: ${error.message}\n`));
await boss.start();
for (const queue of config.queues) {
  await boss.work(
    queue,
    {
      pollingIntervalSeconds: config.polling ?? 0.5,
      // NOTIFY wakes a worker for new jobs only: a job put back to `retry` by the heartbeat monitor (a
      // takeover) is found by polling, so the notify-mode backstop poll must be as short as the base one.
      notifyPollingIntervalSeconds: config.polling ?? 0.5,
      ...(config.refresh ? { heartbeatRefreshSeconds: config.refresh } : {}),
      batchSize: 1,
      localConcurrency: 1,
    },
    async ([job]) => {
      say('start', { id: job.id, retry: job.retryCount, queue, data: job.data });
      const ms = job.data?.ms ?? 3_600_000;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        job.signal.addEventListener('abort', () => {
          say('abort', { id: job.id, queue });
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
      say('done', { id: job.id, queue });
    },
  );
}
say('ready');
process.on('SIGTERM', () => {
  void boss.stop({ graceful: false, timeout: 2000 }).then(() => process.exit(0));
});
