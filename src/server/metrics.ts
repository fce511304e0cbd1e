// Prometheus metrics of `ringmaster serve` (GET /metrics, behind the API's credential), with prom-client. The
// figures of runs and iterations come from the store at each scrape (a few aggregate queries, for every run in it,
// whoever drives them: a team's PostgreSQL store shows every worker's runs); WebSocket clients and store write
// latency are this server's own. Counters derived from the store are totals of its rows (they only go down when
// runs are deleted from the store).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricType } from 'prom-client';
import { RUN_STATUSES } from '../core/types.js';
import { DURATION_BUCKETS_S, type Store, type StoreMetrics } from '../store/index.js';

/** What the metrics are read from. */
export interface MetricsSources {
  store: Store;
  /** Connected WebSocket clients. */
  webSocketClients(): number;
}

/** The server's metrics: the registry to scrape and the store write latency to observe. */
export interface ServerMetrics {
  /** Observes one store write (seconds). */
  observeStoreWrite: (method: string, seconds: number) => void;
  /** The exposition text of every metric, and its content type. */
  scrape: (sources: MetricsSources) => Promise<{ contentType: string; body: string }>;
}

// prom-client's types declare MetricType a numeric enum it does not export; at run time the type is this text.
const HISTOGRAM = 'histogram' as unknown as MetricType;

/** The iteration duration histogram, whose bucket counts come from the store (prom-client can only observe). */
class StoreHistogram extends Histogram<'agent' | 'le'> {
  figures: StoreMetrics['durations'] = [];

  override get(): ReturnType<Histogram<'agent' | 'le'>['get']> {
    const name = 'ringmaster_iteration_duration_seconds';
    const values = this.figures.flatMap((d) => [
      ...DURATION_BUCKETS_S.map((le, i) => ({ metricName: `${name}_bucket`, labels: { agent: d.agent, le }, value: d.buckets[i] ?? 0 })),
      { metricName: `${name}_bucket`, labels: { agent: d.agent, le: '+Inf' }, value: d.count },
      { metricName: `${name}_sum`, labels: { agent: d.agent }, value: d.sum_seconds },
      { metricName: `${name}_count`, labels: { agent: d.agent }, value: d.count },
    ]);
    return Promise.resolve({ name, help: 'duration of finished iterations, by agent', type: HISTOGRAM, aggregator: 'sum' as const, collect: () => undefined, values });
  }

  /** What the registry prints (prom-client's histogram prints from its own observations otherwise). */
  getForPromString(): ReturnType<Histogram<'agent' | 'le'>['get']> {
    return this.get();
  }
}

/** Creates the metrics of one server (its own registry: two servers in a process never share figures). */
export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ringmaster_' });
  const registers = [registry];
  const runs = new Gauge({ name: 'ringmaster_runs', help: 'runs in the store, by status', labelNames: ['status'], registers });
  const iterations = new Counter({ name: 'ringmaster_iterations_total', help: 'iterations in the store, by agent and outcome (running, success, failure, complete, waiting, interrupted)', labelNames: ['agent', 'outcome'], registers });
  const cost = new Counter({ name: 'ringmaster_cost_usd_total', help: 'cost of every iteration in the store in USD (known costs), by agent', labelNames: ['agent'], registers });
  const tokens = new Counter({ name: 'ringmaster_tokens_total', help: 'tokens of every iteration in the store, by agent and kind (input, output, cache_read, cache_write)', labelNames: ['agent', 'kind'], registers });
  const waits = new Counter({ name: 'ringmaster_usage_limit_waits_total', help: 'iterations that hit a usage or rate limit (the run then waited), by agent', labelNames: ['agent'], registers });
  const queue = new Gauge({ name: 'ringmaster_queue_length', help: 'runs queued (pending) in the store', registers });
  const clients = new Gauge({ name: 'ringmaster_websocket_clients', help: 'WebSocket clients connected to this server', registers });
  const duration = new StoreHistogram({ name: 'ringmaster_iteration_duration_seconds', help: 'duration of finished iterations, by agent', labelNames: ['agent'], buckets: [...DURATION_BUCKETS_S], registers });
  const writes = new Histogram({
    name: 'ringmaster_store_write_seconds',
    help: "latency of this server's store writes, by method",
    labelNames: ['method'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });

  const fill = (m: StoreMetrics): void => {
    for (const metric of [runs, iterations, cost, tokens, waits]) metric.reset();
    const byStatus = new Map(m.runs_by_status.map((r) => [r.status, r.count]));
    for (const status of RUN_STATUSES) runs.set({ status }, byStatus.get(status) ?? 0);
    queue.set(byStatus.get('pending') ?? 0);
    for (const it of m.iterations) {
      iterations.inc({ agent: it.agent, outcome: it.outcome }, it.count);
      cost.inc({ agent: it.agent }, it.cost_usd);
      tokens.inc({ agent: it.agent, kind: 'input' }, it.tokens_in);
      tokens.inc({ agent: it.agent, kind: 'output' }, it.tokens_out);
      tokens.inc({ agent: it.agent, kind: 'cache_read' }, it.cache_read);
      tokens.inc({ agent: it.agent, kind: 'cache_write' }, it.cache_write);
      if (it.outcome === 'waiting') waits.inc({ agent: it.agent }, it.count);
    }
    duration.figures = m.durations;
  };

  return {
    observeStoreWrite: (method, seconds) => writes.observe({ method }, seconds),
    async scrape(sources) {
      fill(await sources.store.metrics());
      clients.set(sources.webSocketClients());
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
