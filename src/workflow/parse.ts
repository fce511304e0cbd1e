// Reads one workflow file's text: YAML with line numbers, the schema, the checks that need the environment
// (known agents, command files), then the normalised Workflow. Every problem is reported, never only the first.
import { LineCounter, parseDocument, type Document } from 'yaml';
import { parseDuration } from '../core/duration.js';
import { yamlData } from '../config/yaml-data.js';
import { issuesToProblems, keyOf, lineOf, sortProblems } from './lines.js';
import { commandArgv, stepName, structureIssues, workflowSchema, type LoopFile, type StepFile, type WorkflowFile } from './schema.js';
import type { LoopSpec, PromptRef, Workflow, WorkflowProblem, WorkflowStep } from './types.js';

/** What checking a workflow needs from outside: the known agents and where command files are. */
export interface ParseContext {
  agentNames: readonly string[];
  /** Path of the prompt file of `command: NAME`, or null when there is none. */
  resolveCommand(name: string): string | null;
  /** Where a missing command file would be looked for, for the message. */
  commandHint: string;
}

/** A parsed file: the workflow when there are no problems. */
export type ParseResult = { workflow: Workflow; problems: [] } | { workflow: null; problems: WorkflowProblem[] };

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Places of the file that name an agent or a command: [path, value]. */
function references(data: Record<string, unknown>, key: 'agent' | 'command'): Array<[Array<string | number>, string]> {
  const found: Array<[Array<string | number>, string]> = [];
  if (typeof data[key] === 'string') found.push([[key], data[key]]);
  if (Array.isArray(data.steps)) {
    data.steps.forEach((step, index) => {
      if (isMapping(step) && typeof step[key] === 'string') found.push([['steps', index, key], step[key]]);
    });
  }
  return found;
}

function environmentProblems(data: Record<string, unknown>, doc: Document, counter: LineCounter, file: string, ctx: ParseContext): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  const at = (path: Array<string | number>, message: string) => problems.push({ file, line: lineOf(doc, counter, path), key: keyOf(path), message });
  for (const [path, agent] of references(data, 'agent')) {
    if (!ctx.agentNames.includes(agent)) at(path, `unknown agent '${agent}' (known: ${ctx.agentNames.join(', ')})`);
  }
  for (const [path, command] of references(data, 'command')) {
    if (ctx.resolveCommand(command) === null) at(path, `no prompt file for command '${command}' (looked for ${ctx.commandHint.replace('NAME', command)})`);
  }
  return problems;
}

function structureProblems(data: unknown, doc: Document, counter: LineCounter, file: string): WorkflowProblem[] {
  return structureIssues(data).map((issue) => ({ file, line: lineOf(doc, counter, issue.path), key: keyOf(issue.path), message: issue.message }));
}

function money(value: number | string | undefined): number | null {
  if (value === undefined) return null;
  return typeof value === 'number' ? value : Number(value.trim().replace(/^\$/, ''));
}

function duration(value: number | string | undefined): number | null {
  if (value === undefined) return null;
  return typeof value === 'number' ? Math.round(value * 1000) : parseDuration(value);
}

function loopSpec(loop: LoopFile): LoopSpec {
  return {
    until: loop.until.trim(),
    maxIterations: loop.max_iterations,
    freshContext: loop.fresh_context ?? false,
    untilCommand: loop.until_command === undefined ? null : commandArgv(loop.until_command),
    maxCostUsd: money(loop.max_cost),
    maxRuntimeMs: duration(loop.max_runtime),
    idleTimeoutMs: duration(loop.idle_timeout),
  };
}

function promptRef(owner: { prompt?: string | undefined; command?: string | undefined }, ctx: ParseContext): PromptRef {
  if (owner.command !== undefined) return { kind: 'command', name: owner.command, path: ctx.resolveCommand(owner.command) ?? '' };
  return { kind: 'text', text: owner.prompt ?? '' };
}

function normalise(data: WorkflowFile, file: string, source: Workflow['source'], ctx: ParseContext): Workflow {
  const base = { name: data.name, description: (data.description ?? '').trim(), agent: data.agent ?? null, model: data.model ?? null, file, source };
  if (data.loop !== undefined) {
    const step: WorkflowStep = { index: 1, name: data.name, prompt: promptRef(data, ctx), agent: null, model: null, clearContext: false, loop: loopSpec(data.loop) };
    return { ...base, kind: 'loop', steps: [step] };
  }
  const steps = (data.steps ?? []).map(
    (step: StepFile, i): WorkflowStep => ({
      index: i + 1,
      name: stepName(step, i),
      prompt: promptRef(step, ctx),
      agent: step.agent ?? null,
      model: step.model ?? null,
      clearContext: step.clear_context ?? false,
      loop: step.loop === undefined ? null : loopSpec(step.loop),
    }),
  );
  return { ...base, kind: 'steps', steps };
}

/** Parses and checks the text of a workflow file. */
export function parseWorkflow(text: string, file: string, source: Workflow['source'], ctx: ParseContext): ParseResult {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => ({ file, line: counter.linePos(e.pos[0]).line, key: '', message: `invalid YAML: ${e.message.split('\n')[0] ?? ''}` }));
    return { workflow: null, problems: sortProblems(problems) };
  }
  const resolved = yamlData(doc, counter);
  if (!resolved.ok) return { workflow: null, problems: [{ file, line: resolved.line, key: '', message: resolved.message }] };
  const data = resolved.data;
  if (data === null || data === undefined) {
    return { workflow: null, problems: [{ file, line: 1, key: '', message: "the file is empty: a workflow needs a 'name' and 'steps' or a 'loop' with a 'prompt'" }] };
  }
  const parsed = workflowSchema.safeParse(data);
  const problems = [...(parsed.success ? [] : issuesToProblems(parsed.error.issues, doc, counter, file)), ...(isMapping(data) ? environmentProblems(data, doc, counter, file, ctx) : [])];
  // zod skips the refinement between fields when a field is wrong: run it anyway (duplicates are dropped).
  if (!parsed.success) problems.push(...structureProblems(data, doc, counter, file));
  if (!parsed.success || problems.length > 0) return { workflow: null, problems: sortProblems(problems) };
  return { workflow: normalise(parsed.data, file, source, ctx), problems: [] };
}
