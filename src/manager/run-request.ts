// A request to start a run from outside the terminal (POST /api/runs, the dashboard's form): the options of
// `ringmaster run` as a JSON object (run-flags.ts turns it into the CLI's RunFlags). Imports only zod: the
// dashboard bundles this schema for the browser.
import { z } from 'zod';

const list = z.union([z.string(), z.array(z.string())]);

/** `sandbox` of a run request: true, or the keys of the config's `sandbox` section (implying enabled). */
export const sandboxRequestSchema = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().optional(),
    network: z.enum(['agent', 'none', 'all', 'packages']).optional(),
    hide: list.optional(),
    allow_write: list.optional(),
    allow_hosts: list.optional(),
    memory: z.union([z.string().min(1), z.number().int().nonnegative()]).optional(),
    pids: z.union([z.string().min(1), z.number().int().nonnegative()]).optional(),
  }),
]);

const durationOrSeconds = z.union([z.string().min(1), z.number().nonnegative()]).describe("a duration like '90s', '5m', '4h', or seconds");

/** The body of POST /api/runs: `ringmaster run`'s options, snake_case. */
export const runRequestSchema = z
  .strictObject({
    workspace: z.string().min(1).optional().describe('absolute path of the workspace directory on the server (or repository and branch)'),
    repository: z.string().min(1).optional().describe("git URL (or path on the workers' machines) of a run for the workers (serve --workers external)"),
    branch: z.string().min(1).optional().describe('with repository: the branch the run starts from; it works on ringmaster/<run-id>'),
    workflow: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { error: "give the name of one of the workspace's workflows ('ringmaster workflow list'), not a path" })
      .refine((name) => !/\.ya?ml$/i.test(name), { error: "give the workflow's name, not its file's" })
      .optional()
      .describe("run this workflow of the workspace (.ringmaster/workflows) or of Ringmaster's built-in ones, by name, instead of a prompt"),
    message: z.string().optional().describe("a workflow's $USER_MESSAGE"),
    prompt: z.string().optional(),
    prompt_file: z
      .string()
      .refine((path) => !path.startsWith('/') && !path.startsWith('\\') && !path.split(/[\\/]/).includes('..'), { error: 'a path inside the workspace, relative to it (no /..., no ..)' })
      .optional()
      .describe('a file inside the workspace, relative to it'),
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
    no_progress_after: z.number().int().nonnegative().optional().describe('stop (no_progress) after N iterations in a row that changed no file in the git workspace; 0 = off'),
    worktree: z.boolean().optional(),
    sandbox: sandboxRequestSchema.optional().describe("run every agent in an OS sandbox: true, or an object with the config's sandbox keys"),
  })
  .refine((body) => body.workspace !== undefined || body.repository !== undefined, {
    path: ['workspace'],
    message: 'required (or repository and branch, with serve --workers external)',
  })
  .meta({ id: 'RunRequest' });

/** A validated run request. */
export type RunRequest = z.infer<typeof runRequestSchema>;
