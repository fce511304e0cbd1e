// The scripted demo agent's answer to a task loop prompt ("# Task ID: title", see src/tasks/prompt.ts): it
// does the task by writing its file (the file the completion check names, else work/<id>.md) and answers
// with a <ringmaster-result> block. A task checked by a validation script gets a draft first and a claim of
// completion, so the demo shows the verify gate turning that claim down; the feedback fixes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The task a prompt is about, or null when it is not a task prompt. */
export function taskOfPrompt(prompt: string): { id: string; title: string } | null {
  const m = /^# Task (\S+?): (.+)$/m.exec(prompt);
  return m ? { id: m[1] ?? '', title: (m[2] ?? '').trim() } : null;
}

/** Does one iteration of the task of `prompt` in `cwd`; returns the exit code. */
export function taskIteration(cwd: string, prompt: string, write: (text: string) => void): number {
  const task = taskOfPrompt(prompt);
  if (task === null) return 1;
  const named = /^Complete when the file (.+) exists\.$/m.exec(prompt)?.[1];
  const file = named ?? join('work', `${task.id}.md`);
  const validated = /^Complete when the validation script exits 0/m.test(prompt);
  const told = prompt.includes('## The last check failed');
  const draft = validated && !told;
  mkdirSync(dirname(join(cwd, file)), { recursive: true });
  writeFileSync(join(cwd, file), draft ? `# ${task.title}\n\n(draft)\n` : `# ${task.title}\n\nDone by the scripted demo agent.\n`);
  write(`  ... ${draft ? 'drafted' : told ? 'fixed' : 'wrote'} ${file} for ${task.id}\n`);
  write(`<ringmaster-result>${JSON.stringify({ status: 'complete', artifacts: [file], learnings: told ? [`${task.id}: read the check's output before claiming completion`] : [] })}</ringmaster-result>\n`);
  return 0;
}
