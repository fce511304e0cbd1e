// The RunSpec of a task run, from the one `ringmaster run` would resolve: the run's own prompt becomes the
// task prompt's instructions (none unless given), the run budget is the default of docs/tasks.md (tasks.max_runtime 4h,
// tasks.max_cost $50, unless loop.max_runtime / loop.max_cost are set), no run-wide iteration limit unless
// --max-iterations says so (tasks have their own), and no checkpoints in between: one commit per task.
import type { LoadedConfig } from '../config/load.js';
import type { SettingKey } from '../config/settings.js';
import type { RunFlags } from '../spec/resolve.js';
import type { RunSpec } from '../spec/run-spec.js';

/** Adapts a resolved run spec to a task run over the task list `sourceName`. */
export function taskRunSpec(spec: RunSpec, config: LoadedConfig, flags: RunFlags, sourceName: string): RunSpec {
  const explicitPrompt = flags.prompt !== undefined || flags.promptFile !== undefined || flags.procedure !== undefined;
  const builtIn = (key: SettingKey): boolean => (config.sources.get(key) ?? 'built-in') === 'built-in';
  const { loop, tasks } = config.settings;
  return {
    ...spec,
    prompt: explicitPrompt ? spec.prompt : { kind: 'text', text: '' },
    label: sourceName,
    checkpointInterval: 0,
    limits: {
      ...spec.limits,
      maxIterations: flags.maxIterations !== undefined ? spec.limits.maxIterations : null,
      maxRuntimeMs: builtIn('loop.max_runtime') ? tasks.max_runtime : loop.max_runtime,
      maxCostUsd: builtIn('loop.max_cost') ? tasks.max_cost : loop.max_cost,
    },
  };
}
