// The structured result (<ringmaster-result>{json}</ringmaster-result>) and the task prompt template.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TASK_TEMPLATE, readTemplate, renderTaskPrompt, type TaskPromptInput } from '../../src/tasks/prompt.js';
import { describeTaskResult, parseTaskResult } from '../../src/tasks/result.js';
import type { Task } from '../../src/tasks/task.js';
import { useWorkspace } from '../helpers/cli.js';
import { makeTask } from './task-fixture.js';

const ws = useWorkspace('unused\n');

describe('parseTaskResult', () => {
  it('reads each of the four results', () => {
    expect(parseTaskResult('done.\n<ringmaster-result>{"status":"complete","artifacts":["src/a.ts"]}</ringmaster-result>')).toEqual({ kind: 'result', result: { status: 'complete', artifacts: ['src/a.ts'] }, learnings: [] });
    expect(parseTaskResult('<ringmaster-result>{"status":"continue","reason":"tests left"}</ringmaster-result>')).toEqual({ kind: 'result', result: { status: 'continue', reason: 'tests left' }, learnings: [] });
    expect(parseTaskResult('<ringmaster-result>{"status":"blocked","blocker":"need an API key"}</ringmaster-result>')).toEqual({ kind: 'result', result: { status: 'blocked', blocker: 'need an API key' }, learnings: [] });
    expect(parseTaskResult('<ringmaster-result>{"status":"failed","error":"disk full","learnings":"clean /tmp first"}</ringmaster-result>')).toEqual({
      kind: 'result',
      result: { status: 'failed', error: 'disk full' },
      learnings: ['clean /tmp first'],
    });
  });

  it('is tolerant: tag spacing and case, code fences, synonyms, missing optional fields', () => {
    const text = 'Result:\n< Ringmaster-Result >\n```json\n{"status": "Done"}\n```\n</ ringmaster-result>\n';
    expect(parseTaskResult(text)).toEqual({ kind: 'result', result: { status: 'complete', artifacts: [] }, learnings: [] });
    expect(parseTaskResult('<ringmaster-result>{"status":"blocked"}</ringmaster-result>')).toMatchObject({ result: { status: 'blocked', blocker: 'no reason given' } });
    expect(parseTaskResult('<ringmaster-result>{"status":"continue","message":"half way"}</ringmaster-result>')).toMatchObject({ result: { status: 'continue', reason: 'half way' } });
  });

  it('the last well-formed block wins; a malformed one is reported when there is no good one', () => {
    const two = '<ringmaster-result>{"status":"continue"}</ringmaster-result> later <ringmaster-result>{"status":"complete"}</ringmaster-result>';
    expect(parseTaskResult(two)).toMatchObject({ result: { status: 'complete' } });
    expect(parseTaskResult(`${two} <ringmaster-result>{oops}</ringmaster-result>`)).toMatchObject({ result: { status: 'complete' } });
    const oops = parseTaskResult('<ringmaster-result>{oops}</ringmaster-result>');
    expect(oops.kind === 'invalid' && oops.problem.startsWith('the ringmaster-result block is not valid JSON (')).toBe(true);
    expect(parseTaskResult('<ringmaster-result>{"status":"complete | continue | blocked | failed"}</ringmaster-result>')).toEqual({
      kind: 'invalid',
      problem: 'the ringmaster-result block: status must be continue, complete, blocked or failed, got "complete | continue | blocked | failed"',
    });
    expect(parseTaskResult('<ringmaster-result>{"reason":"x"}</ringmaster-result>')).toEqual({ kind: 'invalid', problem: 'the ringmaster-result block: status: Invalid input: expected string, received undefined' });
    expect(parseTaskResult('no block here <promise>COMPLETE</promise>')).toEqual({ kind: 'none' });
  });

  it('is bounded: an unclosed tag costs nothing, an oversized block is refused, only the end of the text is read', () => {
    const opens = '<ringmaster-result>'.repeat(20_000);
    expect(parseTaskResult(`${opens}{"status":"complete"}</ringmaster-result>`)).toMatchObject({ result: { status: 'complete' } });
    expect(parseTaskResult(`<ringmaster-result>{"status":"continue","reason":"${'x'.repeat(40_000)}"}</ringmaster-result>`)).toEqual({
      kind: 'invalid',
      problem: 'the ringmaster-result block is longer than 32768 characters',
    });
    const early = '<ringmaster-result>{"status":"complete"}</ringmaster-result>';
    expect(parseTaskResult(early + 'y'.repeat(300 * 1024))).toEqual({ kind: 'none' });
  });

  it('describes results in one line', () => {
    expect(describeTaskResult({ status: 'complete', artifacts: ['a', 'b'] })).toBe('complete: a, b');
    expect(describeTaskResult({ status: 'continue', reason: '' })).toBe('continue');
    expect(describeTaskResult({ status: 'blocked', blocker: 'x' })).toBe('blocked: x');
    expect(describeTaskResult({ status: 'failed', error: 'y' })).toBe('failed: y');
  });
});

const TASK: Task = makeTask('RALPH-001', {
  title: 'Write the task schema',
  description: 'Describe every field.',
  status: 'in_progress',
  priority: 3,
  completion: { type: 'file_exists', path: './specs/task-schema.md' },
  acceptance: ['lists every field', 'has an example'],
  line: 1,
});

function input(overrides: Partial<TaskPromptInput> = {}): TaskPromptInput {
  return { task: TASK, iteration: 2, maxIterations: 10, tracker: 'tasks.jsonl', instructions: '', progress: '', learnings: '', feedback: '', signal: '<promise>COMPLETE</promise>', ...overrides };
}

describe('renderTaskPrompt', () => {
  it('the built-in template with every section', () => {
    const prompt = renderTaskPrompt(
      DEFAULT_TASK_TEMPLATE,
      input({ instructions: 'Use TypeScript.', progress: '- iteration 1: success — continue: draft written', learnings: '- RALPH-000 (Setup): done in 1 iteration', feedback: 'the file ./specs/task-schema.md does not exist' }),
    );
    expect(prompt).toBe(`# Task RALPH-001: Write the task schema

You are working on one task from the task list tasks.jsonl (iteration 2 of at most 10 on this task).
Work on this task only. Earlier iterations' work is already in the files of this workspace: look at it first.
Do not edit tasks.jsonl: Ringmaster updates it and commits your work when the task is complete.

## Instructions
Use TypeScript.

## Description
Describe every field.

## Acceptance criteria
- lists every field
- has an example

## How completion is checked
Complete when the file ./specs/task-schema.md exists.

## The last check failed
the file ./specs/task-schema.md does not exist

## Progress so far on this task
- iteration 1: success — continue: draft written

## Learnings from earlier tasks
- RALPH-000 (Setup): done in 1 iteration

## When you stop
End your answer with one result block, JSON inside the tag (status is one of complete, continue, blocked, failed):
<ringmaster-result>{"status": "complete | continue | blocked | failed", "artifacts": ["files you made (complete)"], "reason": "what is left (continue)", "blocker": "what you need (blocked)", "error": "what went wrong (failed)", "learnings": ["anything the next tasks should know"]}</ringmaster-result>
Or, when the task is complete, print <promise>COMPLETE</promise>.
`);
    // The example block in the prompt is never taken for a result if an agent repeats it.
    expect(parseTaskResult(prompt).kind).toBe('invalid');
  });

  it('empty sections disappear', () => {
    const prompt = renderTaskPrompt(DEFAULT_TASK_TEMPLATE, input({ task: { ...TASK, description: '', acceptance: [] }, maxIterations: null, iteration: 1 }));
    expect(prompt).toBe(`# Task RALPH-001: Write the task schema

You are working on one task from the task list tasks.jsonl (iteration 1 on this task).
Work on this task only. Earlier iterations' work is already in the files of this workspace: look at it first.
Do not edit tasks.jsonl: Ringmaster updates it and commits your work when the task is complete.

## How completion is checked
Complete when the file ./specs/task-schema.md exists.

## When you stop
End your answer with one result block, JSON inside the tag (status is one of complete, continue, blocked, failed):
<ringmaster-result>{"status": "complete | continue | blocked | failed", "artifacts": ["files you made (complete)"], "reason": "what is left (continue)", "blocker": "what you need (blocked)", "error": "what went wrong (failed)", "learnings": ["anything the next tasks should know"]}</ringmaster-result>
Or, when the task is complete, print <promise>COMPLETE</promise>.
`);
  });

  it("a user's template: values are inserted once (a placeholder inside a value stays text); unknown names are errors", async () => {
    const path = join(ws.dir, 'task-prompt.md');
    writeFileSync(path, 'Do {{ task.id }} ({{task.title}}).{{#feedback}} Fix: {{feedback}}{{/feedback}}\n');
    const template = await readTemplate(path);
    expect(renderTaskPrompt(template, input({ feedback: 'see {{task.id}}' }), path)).toBe('Do RALPH-001 (Write the task schema). Fix: see {{task.id}}\n');
    expect(() => renderTaskPrompt('{{task.owner}}', input(), path)).toThrow(`${path}: unknown placeholder {{task.owner}} (known: task.id, task.title,`);
    expect(() => renderTaskPrompt('{{#feedback}}open', input(), path)).toThrow(`${path}: a {{#section}} is not closed by its {{/section}}`);
    await expect(readTemplate(join(ws.dir, 'none.md'))).rejects.toThrow(`task prompt template not found: ${join(ws.dir, 'none.md')}`);
  });
});
