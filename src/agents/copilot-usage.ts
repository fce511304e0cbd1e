// Reads a Copilot CLI run's token usage from its session log (`<session-state>/<id>/events.jsonl`): its
// JSON output leaves out `assistant.usage`, but each process writes a `session.shutdown` event with totals.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Usage } from '../core/types.js';
import { count, figure } from './jsonl.js';

const metricsSchema = z.lazy(() =>
  z.record(
    z.string(),
    z.looseObject({
      usage: z
        .looseObject({
          inputTokens: figure(),
          outputTokens: figure(),
          cacheReadTokens: figure(),
          cacheWriteTokens: figure(),
        })
        .nullish(),
    }),
  ),
);

/** The part of a `session.shutdown` line Ringmaster reads. */
const shutdownSchema = z.lazy(() =>
  z.looseObject({
    type: z.literal('session.shutdown'),
    data: z.looseObject({
      currentModel: z.string().nullish(),
      modelMetrics: metricsSchema.nullish(),
    }),
  }),
);

/** Tokens of one Copilot process and the model that used most of them. */
export interface CopilotUsage {
  usage: Usage;
  model: string | null;
}

function totals(metrics: z.infer<typeof metricsSchema> | null | undefined): { usage: Usage; byModel: Map<string, number> } {
  const usage: Usage = { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 };
  const byModel = new Map<string, number>();
  for (const [model, m] of Object.entries(metrics ?? {})) {
    const u = m.usage;
    if (!u) continue;
    usage.tokensIn += count(u.inputTokens);
    usage.tokensOut += count(u.outputTokens);
    usage.cacheRead += count(u.cacheReadTokens);
    usage.cacheWrite += count(u.cacheWriteTokens);
    byModel.set(model, (byModel.get(model) ?? 0) + count(u.inputTokens) + count(u.outputTokens));
  }
  return { usage, byModel };
}

/**
 * Parses a session log's text. Shutdown totals are cumulative over a resumed session, so the last
 * process's usage is the last shutdown minus the one before it. Null when the log has no shutdown.
 */
export function copilotUsageFromLog(text: string): CopilotUsage | null {
  const shutdowns: z.infer<typeof shutdownSchema>[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"session.shutdown"')) continue;
    try {
      const parsed = shutdownSchema.safeParse(JSON.parse(line));
      if (parsed.success) shutdowns.push(parsed.data);
    } catch {
      // a torn or foreign line: not a shutdown event
    }
  }
  const last = shutdowns.at(-1);
  if (last === undefined) return null;
  const now = totals(last.data.modelMetrics);
  const before = totals(shutdowns.at(-2)?.data.modelMetrics).usage;
  const usage: Usage = {
    tokensIn: Math.max(0, now.usage.tokensIn - before.tokensIn),
    tokensOut: Math.max(0, now.usage.tokensOut - before.tokensOut),
    cacheRead: Math.max(0, now.usage.cacheRead - before.cacheRead),
    cacheWrite: Math.max(0, now.usage.cacheWrite - before.cacheWrite),
  };
  const top = [...now.byModel.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  return { usage, model: last.data.currentModel ?? top };
}

/** Reads the usage of the last process of a session from its log file; null when absent or unreadable. */
export function readCopilotSessionUsage(eventsFile: string): CopilotUsage | null {
  let text: string;
  try {
    text = readFileSync(eventsFile, 'utf8');
  } catch {
    return null;
  }
  return copilotUsageFromLog(text);
}
