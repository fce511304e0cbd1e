// The list of subcommands, in the order `ringmaster --help` shows them. Each is loaded only when it runs,
// so a short command (e.g. `hook stop`, called at every turn of a Claude Code session) starts fast.
import type { Command } from '../command.js';

/** A subcommand as the dispatcher knows it before loading it. */
export interface CommandEntry {
  name: string;
  /** One line for `ringmaster --help`. */
  summary: string;
  load(): Promise<Command>;
}

/** Every `ringmaster` subcommand. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'run', summary: 'run an agent in a loop in the current directory until it signals completion or a limit stops it', load: async () => (await import('./run.js')).runCommand },
  { name: 'workflow', summary: 'YAML workflows (.ringmaster/workflows/): list, validate, run steps and loops', load: async () => (await import('./workflow.js')).workflowCommand },
  { name: 'tasks', summary: 'task lists (tasks.jsonl, prd.json, TODO.md): list, show, which task runs next; run them one task at a time', load: async () => (await import('./tasks.js')).tasksCommand },
  { name: 'demo', summary: 'run a real loop with the built-in scripted agent in a temporary git repository (no API key)', load: async () => (await import('./demo.js')).demoCommand },
  { name: 'config', summary: 'show the resolved configuration and where each value came from, or its JSON Schema', load: async () => (await import('./config.js')).configCommand },
  { name: 'notify', summary: 'notifications: send a sample to every configured webhook and command, and show what each answered', load: async () => (await import('./notify.js')).notifyCommand },
  { name: 'runs', summary: 'list the runs of a workspace, newest first', load: async () => (await import('./runs.js')).runsCommand },
  { name: 'show', summary: "show one run: summary, iterations table, checkpoints", load: async () => (await import('./show.js')).showCommand },
  { name: 'logs', summary: "print a run's agent output (per iteration), optionally following it", load: async () => (await import('./logs.js')).logsCommand },
  { name: 'diff', summary: 'print what one iteration changed, as a git diff', load: async () => (await import('./diff.js')).diffCommand },
  { name: 'stats', summary: 'cost per run, average iterations to completion, cost by hour', load: async () => (await import('./stats.js')).statsCommand },
  { name: 'budget', summary: 'the shared budget of every run (daily, monthly): spend against it by agent and run; budget set changes it', load: async () => (await import('./budget.js')).budgetCommand },
  { name: 'rollback', summary: "restore a run's workspace to one of its checkpoints", load: async () => (await import('./rollback.js')).rollbackCliCommand },
  { name: 'resume', summary: 'resume a paused run, or continue a crashed, interrupted or stopped one with its totals and limits intact', load: async () => (await import('./resume.js')).resumeCommand },
  { name: 'pause', summary: 'pause a run after its current iteration (from any terminal); resume continues it', load: async () => (await import('./pause.js')).pauseCommand },
  { name: 'stop', summary: 'stop a run: a live one finishes with stop reason user_stop; an orphaned one is closed', load: async () => (await import('./stop.js')).stopCommand },
  { name: 'note', summary: "send a note to a run: delivered once in the next iteration's prompt; list or withdraw pending notes", load: async () => (await import('./note.js')).noteCommand },
  { name: 'serve', summary: 'the loop manager: many runs, a REST API, a WebSocket and the dashboard on 127.0.0.1:7420', load: async () => (await import('./serve.js')).serveCliCommand },
  { name: 'worker', summary: 'drive runs queued in the shared database (run --repository), on any machine', load: async () => (await import('./worker.js')).workerCommand },
  { name: 'loop', summary: 'Hook mode: start, show or cancel a loop inside one Claude Code session', load: async () => (await import('./loop.js')).loopCliCommand },
  { name: 'hook', summary: 'Hook mode: the Claude Code Stop hook (stop) and its install/uninstall', load: async () => (await import('./hook.js')).hookCliCommand },
  { name: 'doctor', summary: 'check which agent CLIs are installed, their versions and credentials; install a missing one', load: async () => (await import('./doctor.js')).doctorCommand },
];
