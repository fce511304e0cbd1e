// The run's cost budget (max_cost) while agents work. Between iterations decide() stops a run that has spent its
// budget; this stops the agents that spend it during an iteration: each running iteration reports what it has
// cost so far (IterationCost.report), and once the run's recorded cost plus what the running iterations have
// spent reaches the budget, every running agent is stopped (its iteration ends with `max_cost`). Without it one
// long iteration, or several at once (tasks.parallelism), could spend far past the budget.

/** What an iteration about to start gets: its budget signal and where it reports its spend (none without a budget). */
export interface IterationBudget {
  budgetSignal?: AbortSignal;
  onSpend?: (usd: number) => void;
}

/** The budget of one run across its running iterations. */
export class SpendGuard {
  private readonly running = new Map<number, { spent: number; cut: AbortController }>();

  /**
   * `maxCostUsd`: the run's budget (null: none, nothing is watched); `committed`: what the run's finished
   * iterations cost (across resumes); `onCut`: told once per cut, with the spend that reached the budget.
   */
  constructor(
    private readonly maxCostUsd: number | null,
    private readonly committed: () => number,
    private readonly onCut: (spentUsd: number, iterations: number[]) => void,
  ) {}

  /** True when the run's recorded cost plus what its running iterations spent so far reaches the budget. */
  get exhausted(): boolean {
    return this.maxCostUsd !== null && this.total() >= this.maxCostUsd;
  }

  /** For iteration `n`, about to start. */
  start(n: number): IterationBudget {
    if (this.maxCostUsd === null) return {};
    const cut = new AbortController();
    if (this.exhausted) cut.abort();
    this.running.set(n, { spent: 0, cut });
    return { budgetSignal: cut.signal, onSpend: (usd) => this.spent(n, usd) };
  }

  /** Iteration `n` ended (its cost is in `committed` from now on). */
  end(n: number): void {
    this.running.delete(n);
  }

  private spent(n: number, usd: number): void {
    const entry = this.running.get(n);
    if (entry === undefined || this.maxCostUsd === null) return;
    entry.spent = usd;
    const total = this.total();
    if (total < this.maxCostUsd) return;
    const cut = [...this.running].filter(([, r]) => !r.cut.signal.aborted);
    if (cut.length === 0) return;
    for (const [, r] of cut) r.cut.abort();
    this.onCut(total, cut.map(([i]) => i));
  }

  private total(): number {
    let total = this.committed();
    for (const r of this.running.values()) total += r.spent;
    return total;
  }
}
