// A LISTEN process for bench/pgboss-eval.js's fan-out measure: one connection, prints for each notification
// the latency from the sender's timestamp in the payload (performance.timeOrigin + now(): comparable across
// processes on one machine), then a summary line when told to stop (SIGTERM).
import pg from 'pg';

const client = new pg.Client({ connectionString: process.argv[2] });
await client.connect();
const latencies = [];
client.on('notification', (msg) => {
  const at = performance.timeOrigin + performance.now();
  latencies.push(at - Number(JSON.parse(msg.payload).sent));
});
await client.query('LISTEN ringmaster_events');
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify(latencies)}\n`);
  void client.end().then(() => process.exit(0));
});
