// A request to start a run from outside the terminal (POST /api/runs, the dashboard's form): the options of
// `ringmaster run` as a JSON object (run-flags.ts turns it into the CLI's RunFlags). Imports only zod: the
// dashboard bundles this schema for the browser.
import { z } from 'zod';

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
    verify: z.string().min(1).optional().describe('a command that must exit 0 before a claimed completion ends the run (split like agent_command, never run by a shell)'),
    verify_timeout: durationOrSeconds.optional(),
    verify_each: z.boolean().optional().describe('run the verify command after every iteration'),
    worktree: z.boolean().optional(),
  })
  .refine((body) => body.workspace !== undefined || body.repository !== undefined, {
    path: ['workspace'],
    message: 'required (or repository and branch, with serve --workers external)',
  })
  .meta({ id: 'RunRequest' });

/** A validated run request. */
export type RunRequest = z.infer<typeof runRequestSchema>;
