// The notifier of a run driven by this process (CLI, server or worker alike: the run controller makes it): the
// run's stored notify settings (events, command, link base) and this process's webhooks.
import { DEFAULT_NOTIFY_ON } from '../core/notify-events.js';
import { Notifier } from '../notify/notifier.js';
import { commandTarget, processWebhooks, webhookTarget, type Target } from '../notify/targets.js';
import type { RunEventBody } from '../runner/events.js';
import type { RunSpec } from '../spec/run-spec.js';
import type { DeliveryPolicy } from '../notify/deliver.js';
import { runTitle } from './views.js';

/** What a run's notifier is made from. */
export interface RunNotifierOptions {
  runId: string;
  spec: RunSpec;
  env: Readonly<Record<string, string | undefined>>;
  emit: (body: RunEventBody) => void;
  now: () => number;
  /** Tests: a shorter delivery policy and flush. */
  policy?: DeliveryPolicy;
  flushMs?: number;
}

/** The run's notifier, or null when nothing is configured to hear from it. */
export function createRunNotifier(options: RunNotifierOptions): Notifier | null {
  const { spec, env } = options;
  const own = processWebhooks(env);
  if (own.problem !== null) options.emit({ type: 'warning', time: options.now(), message: `notifications: no webhooks (${own.problem})` });
  const command = spec.notify?.command ?? null;
  const targets: Target[] = [...own.webhooks.map(webhookTarget), ...(command === null ? [] : [commandTarget(command, spec.workspace)])];
  if (targets.length === 0) return null;
  return new Notifier({
    runId: options.runId,
    title: runTitle(spec.prompt.kind === 'text' ? spec.prompt.text : null, spec.label) ?? spec.label,
    workspace: spec.workspace,
    on: spec.notify?.on ?? DEFAULT_NOTIFY_ON,
    publicUrl: spec.notify?.publicUrl ?? own.publicUrl,
    targets,
    emit: options.emit,
    now: options.now,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.flushMs !== undefined ? { flushMs: options.flushMs } : {}),
  });
}
