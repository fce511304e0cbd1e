// A request to start a run from outside the terminal (POST /api/runs, the dashboard's form): the options of
// `ringmaster run` as a JSON object, turned into the same RunFlags so that validation and messages are the same.
import { z } from 'zod';
import { quoteArgv } from '../agents/command.js';
import { SETTING_FLAGS, type RunFlags } from '../config/resolve.js';

const durationOrSeconds = z.union([z.string().min(1), z.number().nonnegative()]).describe("a duration like '90s', '5m', '4h', or seconds");

/** The body of POST /api/runs: `ringmaster run`'s options, snake_case. */
export const runRequestSchema = z
  .strictObject({
    workspace: z.string().min(1).optional().describe('absolute path of the workspace directory on the server (or repository and branch)'),
    repository: z.string().min(1).optional().describe("git URL (or path on the workers' machines) of a run for the workers (serve --workers external)"),
    branch: z.string().min(1).optional().describe('with repository: the branch the run starts from; it works on ringmaster/<run-id>'),
    workflow: z.string().min(1).optional().describe("run this workflow (its name, or a file's path relative to the workspace) instead of a prompt"),
    message: z.string().optional().describe("a workflow's $USER_MESSAGE"),
    prompt: z.string().optional(),
    prompt_file: z.string().optional().describe('relative to the workspace'),
    procedure: z.string().optional(),
    context: z.string().optional(),
    agent: z.string().optional(),
    agent_command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional().describe('argv of the command agent (a string is split like a shell would, never run by one)'),
    model: z.string().optional(),
    max_iterations: z.number().int().positive().optional(),
    unlimited: z.boolean().optional(),
    max_runtime: durationOrSeconds.optional(),
    max_cost: z.union([z.number().nonnegative(), z.string().min(1)]).optional(),
    failure_threshold: z.number().int().positive().optional(),
    cooldown: durationOrSeconds.optional(),
    idle_timeout: durationOrSeconds.optional(),
    iteration_timeout: durationOrSeconds.optional(),
    checkpoint_interval: z.number().int().nonnegative().optional(),
    worktree: z.boolean().optional(),
  })
  .refine((body) => body.workspace !== undefined || body.repository !== undefined, {
    path: ['workspace'],
    message: 'required (or repository and branch, with serve --workers external)',
  })
  .meta({ id: 'RunRequest' });

/** A validated run request. */
export type RunRequest = z.infer<typeof runRequestSchema>;

/** The request's value for a run flag (by the flag's name without dashes, snake_case), as the CLI would get it. */
function rawOf(request: RunRequest, field: string): string | undefined {
  const value = (request as Record<string, unknown>)[field];
  if (value === undefined) return undefined;
  if (typeof value === 'number') return ['max_runtime', 'cooldown', 'idle_timeout', 'iteration_timeout'].includes(field) ? `${value}s` : String(value);
  if (Array.isArray(value)) return quoteArgv(value.map(String));
  return typeof value === 'string' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** The RunFlags `ringmaster run` would build from the same options (errors name the request fields). */
export function runFlagsFromRequest(request: RunRequest): RunFlags {
  const settings: RunFlags['settings'] = [];
  for (const { key, flag } of SETTING_FLAGS) {
    const field = flag.replace(/^--/, '').replace(/-/g, '_');
    const raw = rawOf(request, field);
    if (raw !== undefined) settings.push({ key, flag: field, raw });
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
