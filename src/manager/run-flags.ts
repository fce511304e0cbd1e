// A run request (POST /api/runs) turned into the RunFlags `ringmaster run` builds from its options, so that
// validation and messages are the CLI's.
import { quoteArgv } from '../agents/command.js';
import { SETTING_FLAGS, type RunFlags } from '../spec/resolve.js';
import type { RunRequest } from './run-request.js';

/** The request's value for a run flag (by the flag's name without dashes, snake_case), as the CLI would get it. */
function rawOf(request: RunRequest, field: string): string | undefined {
  const value = (request as Record<string, unknown>)[field];
  if (value === undefined) return undefined;
  if (typeof value === 'number') return ['max_runtime', 'cooldown', 'idle_timeout', 'iteration_timeout', 'verify_timeout'].includes(field) ? `${value}s` : String(value);
  if (Array.isArray(value)) return quoteArgv(value.map(String));
  return typeof value === 'string' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** The RunFlags `ringmaster run` would build from the same options (errors name the request fields). */
export function runFlagsFromRequest(request: RunRequest): RunFlags {
  const settings: RunFlags['settings'] = [];
  for (const { key, flag } of SETTING_FLAGS) {
    const field = flag.replace(/^--/, '').replace(/-/g, '_');
    if (field === 'sandbox' && typeof request.sandbox === 'object') continue;
    const raw = rawOf(request, field);
    if (raw !== undefined) settings.push({ key, flag: field, raw });
  }
  if (typeof request.sandbox === 'object') {
    const { enabled, ...rest } = request.sandbox;
    settings.push({ key: 'sandbox.enabled', flag: 'sandbox.enabled', raw: String(enabled ?? true) });
    for (const [name, value] of Object.entries(rest)) {
      if (value !== undefined) settings.push({ key: `sandbox.${name}`, flag: `sandbox.${name}`, raw: Array.isArray(value) ? value.join(',') : String(value) });
    }
  }
  return {
    ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    ...(request.prompt_file !== undefined ? { promptFile: request.prompt_file } : {}),
    ...(request.procedure !== undefined ? { procedure: request.procedure } : {}),
    ...(request.context !== undefined ? { context: request.context } : {}),
    ...(request.max_iterations !== undefined ? { maxIterations: String(request.max_iterations) } : {}),
    ...(request.unlimited !== undefined ? { unlimited: request.unlimited } : {}),
    settings,
  };
}
