// The iterations of a run that are running at once (LoopProgram.concurrency): started without being awaited,
// taken back one at a time in the order they end. Each handler is attached once, whatever the number of waits.

/** A set of running jobs, handed back in the order they end. */
export class InFlight<T> {
  private count = 0;
  private readonly ended: Array<{ ok: true; value: T } | { ok: false; error: unknown }> = [];
  private waiter: (() => void) | null = null;

  /** Jobs started and not yet taken back. */
  get size(): number {
    return this.count;
  }

  /** Adds a running job. */
  add(job: Promise<T>): void {
    this.count += 1;
    job.then(
      (value) => this.push({ ok: true, value }),
      (error: unknown) => this.push({ ok: false, error }),
    );
  }

  /**
   * The next job to end (rejecting as it did), or null when `untilMs` (epoch ms, by `now`) comes first. Without
   * a job running it resolves null at once.
   */
  async next(untilMs: number | null = null, now: () => number = Date.now): Promise<T | null> {
    if (this.ended.length === 0 && this.count > 0) {
      let timer: NodeJS.Timeout | null = null;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        if (untilMs !== null) timer = setTimeout(resolve, Math.max(0, untilMs - now()));
      });
      this.waiter = null;
      if (timer !== null) clearTimeout(timer);
    }
    const first = this.ended.shift();
    if (first === undefined) return null;
    this.count -= 1;
    if (!first.ok) throw first.error;
    return first.value;
  }

  private push(entry: { ok: true; value: T } | { ok: false; error: unknown }): void {
    this.ended.push(entry);
    this.waiter?.();
  }
}
