// What an iteration costs, from the usage and cost figures its agent reports as it works: checked and normalised
// (usage-guard.ts), added up or taken as running totals, priced from the tokens when the agent gives no figure of
// its own (or one that cannot be trusted). Read at the end for the iteration's result, and live while the agent
// works (onSpend: the run's budget can stop an agent mid-iteration).
import { computeCostUsd, type PriceTable } from '../agents/pricing.js';
import type { AgentEvent } from '../agents/types.js';
import { normaliseCost, normaliseUsage } from '../agents/usage-guard.js';
import { addUsage, type Usage } from '../core/types.js';

/** The usage and cost of one iteration as its agent reports them. */
export class IterationCost {
  /** The model the figures are priced for (the agent may name the one it really used). */
  model: string | null;
  /** What was odd about the reported figures (they were normalised), for warnings. */
  readonly oddFigures = new Set<string>();
  private usage: Usage | null = null;
  private cumulativeUsage: Usage | null = null;
  private costIncrements: number | null = null;
  private cumulativeCost: number | null = null;
  private costUntrusted = false;
  private lastSpend = 0;

  /**
   * `baseline`: what a resumed session had already reported as its total (its new totals include it).
   * `onSpend`: told the cost so far when it has grown since it was last told (see report()).
   */
  constructor(
    model: string | null,
    private readonly prices: PriceTable,
    private readonly baseline: number,
    private readonly onSpend: ((usd: number) => void) | null = null,
  ) {
    this.model = model;
  }

  /** Takes a usage or cost event of the agent's stream (other events are ignored). */
  add(event: AgentEvent): void {
    if (event.type === 'usage') {
      const checked = normaliseUsage(event.usage);
      for (const problem of checked.problems) this.oddFigures.add(problem);
      if (event.cumulative) this.cumulativeUsage = checked.usage;
      else this.usage = this.usage ? addUsage(this.usage, checked.usage) : checked.usage;
      if (event.model) this.model = event.model;
    } else if (event.type === 'cost') {
      const checked = normaliseCost(event.usd);
      if (checked.usd === null) {
        // The agent's own figure cannot be trusted: the cost is priced from the tokens, or unknown.
        if (checked.problem) this.oddFigures.add(checked.problem);
        this.costUntrusted = true;
      } else if (event.cumulative) this.cumulativeCost = checked.usd;
      else this.costIncrements = (this.costIncrements ?? 0) + checked.usd;
    }
  }

  /**
   * Tells onSpend the cost so far if it grew. Called between output lines while the agent works (the figures of
   * one line can arrive as several events), never for the figures of its final result (its turn is over then:
   * nothing is saved by stopping it).
   */
  report(): void {
    if (this.onSpend === null) return;
    const spent = this.costUsd();
    if (spent !== null && spent > this.lastSpend) {
      this.lastSpend = spent;
      this.onSpend(spent);
    }
  }

  /** The tokens used (the agent's running total when it reports one, else the sum of its reports), or null. */
  get finalUsage(): Usage | null {
    return this.cumulativeUsage ?? this.usage;
  }

  /** The session's cumulative cost as last reported (for the next resume), or null. */
  get sessionCumulativeCost(): number | null {
    return this.cumulativeCost;
  }

  /** The cost so far: the agent's own figure when it gives a trustworthy one, else priced from the tokens, or null. */
  costUsd(): number | null {
    const usage = this.finalUsage;
    if (this.costUntrusted) return usage ? computeCostUsd(this.model, usage, this.prices) : null;
    // A resumed session reports its whole total: subtract what it had before (rounded to drop float noise).
    if (this.cumulativeCost !== null) return Math.max(0, Math.round((this.cumulativeCost - this.baseline) * 1e10) / 1e10);
    if (this.costIncrements !== null) return this.costIncrements;
    return usage ? computeCostUsd(this.model, usage, this.prices) : null;
  }
}
