// A store cut off from PostgreSQL by a network partition in the middle of a transaction (a TCP proxy that stops
// forwarding right after one statement reached the server): its session holds locks that another process
// needs. The server ends such a session after IDLE_IN_TRANSACTION_MS, so the takeover of its run and the
// event writes of every other run go on; once the network heals, the cut-off write is retried and refused by
// the fence (or, unfenced, lands once).
import { describe, expect, it, type TestContext } from 'vitest';
import { OwnershipLostError } from '../../src/store/errors.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { RunBusyError, type Owner } from '../../src/store/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { startTcpProxy, viaPort, type TcpProxy } from '../helpers/tcp-proxy.js';

const fixture = usePostgres();
const A: Owner = { pid: 101, host: 'worker-a' };
const B: Owner = { pid: 202, host: 'worker-b' };

/** Store `a` reaches a new database through the proxy, store `b` directly; all closed when the test `t` ends. */
async function twoStores(t: TestContext): Promise<{ proxy: TcpProxy; a: PostgresStore; b: PostgresStore }> {
  const url = await fixture.cluster.createDatabase();
  const proxy = await startTcpProxy(fixture.cluster.port);
  const a = await PostgresStore.open(viaPort(url, proxy.port));
  const b = await PostgresStore.open(url);
  t.onTestFinished(async () => {
    proxy.heal();
    await Promise.all([a, b].map((s) => s.close()));
    await proxy.close();
  });
  return { proxy, a, b };
}

/** Claims like a worker taking a run over: once the owner has been silent `idleMs` by the database's clock. */
async function claimWhenIdle(store: PostgresStore, id: string, owner: Owner, idleMs: number): ReturnType<PostgresStore['claimRun']> {
  for (;;) {
    try {
      return await store.claimRun(id, owner, Date.now(), { ifIdleMs: idleMs });
    } catch (error) {
      if (!(error instanceof RunBusyError)) throw error;
      await new Promise((r) => setTimeout(r, idleMs - error.idleMs + 50));
    }
  }
}

// Both at once (each its own database and proxy): each waits for the server to end the cut-off session.
describe.concurrent('PostgreSQL store across a network partition', () => {
  it('lets another owner take a run whose owner was cut off holding its row lock; the cut-off write is refused afterwards', async (t) => {
    const { proxy, a, b } = await twoStores(t);
    await a.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: A, now: Date.now() });
    // A fenced write locks the run row first (as a claim does), then checks the fence: cut after the lock.
    const cut = proxy.partitionAfter('FOR NO KEY UPDATE');
    const write = a.updateRunStatus('r1', 'waiting', Date.now(), A);
    const settled = write.then(
      () => null,
      (error: unknown) => error,
    );
    await cut;
    const claim = await claimWhenIdle(b, 'r1', B, 2000);
    expect(claim.previous).toMatchObject(A);
    expect(proxy.partitioned).toBe(true);
    proxy.heal();
    expect(await settled).toBeInstanceOf(OwnershipLostError);
    expect(await b.getRun('r1')).toMatchObject({ status: 'running', owner_pid: B.pid, owner_host: B.host });
  }, 60_000);

  it("does not stall every run's events while a writer is cut off holding the event-order lock; its event lands once", async (t) => {
    const { proxy, a, b } = await twoStores(t);
    await b.createRun({ id: 'r1', agent: 'claude', spec: {}, workspace: '/w', owner: B, now: 1 });
    await b.createRun({ id: 'r2', agent: 'claude', spec: {}, workspace: '/w2', owner: null, now: 1 });
    // An event without a seq takes the next one under the global event-order lock, in a transaction.
    const cut = proxy.partitionAfter('pg_advisory_xact_lock');
    const write = a.appendEvent({ run_id: 'r2', type: 'note', payload: {}, at: 2 });
    await cut;
    expect(await b.appendEvents([{ run_id: 'r1', seq: 1, type: 'run_started', payload: {}, at: 3 }], B)).toHaveLength(1);
    expect(proxy.partitioned).toBe(true);
    proxy.heal();
    expect(await write).toMatchObject({ run_id: 'r2', seq: 1, type: 'note' });
    expect((await b.listEvents('r2')).map((e) => e.type)).toEqual(['note']);
  }, 60_000);
});
