// The help text of `ringmaster tasks run`, shown by `ringmaster tasks --help`.

/** Usage of `tasks run` (part of `ringmaster tasks --help`). */
export const TASKS_RUN_USAGE = `ringmaster tasks run [FILE] [run options]
  Works through the task list one task at a time: picks a task, runs the agent on it until it is complete
  (its completion check passing), commits it, marks it done in the tracker, appends progress.jsonl and
  learning.jsonl, then takes the next one. A task that reaches its limits is blocked and rolled back.
  Takes the options of 'ringmaster run' (--agent, --agent-command, --model, --max-runtime, --max-cost,
  --max-iterations, --failure-threshold, --cooldown, --idle-timeout, --iteration-timeout, --worktree,
  --dry-run, --verbose, --json, --cwd); --prompt, --prompt-file, --procedure or --context become
  instructions in every task's prompt. Run budget: tasks.max_runtime (4h) and tasks.max_cost ($50) unless
  --max-runtime / --max-cost (or loop.max_runtime / loop.max_cost) say otherwise; no run-wide iteration
  limit unless --max-iterations. Exit codes: 0 every task done, 1 a task blocked with tasks.on_failure: stop
  (or a fatal error), 2 a limit or no runnable task left (some blocked), 130 interrupted.`;
