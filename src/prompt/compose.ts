// Prompt sources and composition: inline text, a prompt file, or an OODA procedure of four phase files.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.js';
import type { ProcedureDef } from '../config/load.js';

/** Where an iteration's prompt comes from. Files are re-read every iteration (state lives in files). */
export type PromptSource =
  | { kind: 'text'; text: string }
  | { kind: 'file'; path: string }
  | { kind: 'procedure'; name: string; procedure: ProcedureDef };

/** The four OODA phases in prompt order. */
export const PHASES = ['observe', 'orient', 'decide', 'act'] as const;

const BUILT_IN_DIR = new URL('../../procedures/', import.meta.url);

/** The procedures shipped with Ringmaster (procedures/<name>/{observe,orient,decide,act}.md). */
export function builtInProcedures(): Map<string, ProcedureDef> {
  const result = new Map<string, ProcedureDef>();
  const dir = fileURLToPath(BUILT_IN_DIR);
  if (!existsSync(dir)) return result;
  for (const name of readdirSync(dir).sort()) {
    const phase = (p: string) => join(dir, name, `${p}.md`);
    if (!PHASES.every((p) => existsSync(phase(p)))) continue;
    result.set(name, {
      observe: phase('observe'),
      orient: phase('orient'),
      decide: phase('decide'),
      act: phase('act'),
      defaultMaxIterations: name === 'build' ? 10 : 1,
      source: 'built-in',
    });
  }
  return result;
}

function readPromptFile(path: string, what: string): string {
  try {
    // An editor's UTF-8 byte order mark is not part of the prompt.
    return readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `${what} not found: ${path}` : `cannot read ${what} ${path}: ${(e as Error).message}`);
  }
}

/** Assembles the OODA layout (README "Procedures"): title, optional CONTEXT, then the four phases. */
export function assembleOoda(phases: Record<(typeof PHASES)[number], string>, context: string | null): string {
  const parts = ['# OODA Loop Iteration', ''];
  if (context !== null && context !== '') parts.push('## CONTEXT', context, '');
  for (const phase of PHASES) parts.push(`## ${phase.toUpperCase()}`, phases[phase].replace(/\s+$/, ''), '');
  return parts.join('\n');
}

/** Composes the prompt of one iteration from its source and the optional user context. */
export function composePrompt(source: PromptSource, context: string | null): string {
  switch (source.kind) {
    case 'procedure': {
      const p = source.procedure;
      const phases = {
        observe: readPromptFile(p.observe, `procedure '${source.name}' observe file`),
        orient: readPromptFile(p.orient, `procedure '${source.name}' orient file`),
        decide: readPromptFile(p.decide, `procedure '${source.name}' decide file`),
        act: readPromptFile(p.act, `procedure '${source.name}' act file`),
      };
      return assembleOoda(phases, context);
    }
    case 'file':
    case 'text': {
      const body = source.kind === 'file' ? readPromptFile(source.path, 'prompt file') : source.text;
      if (body.trim() === '') throw new UserError(source.kind === 'file' ? `prompt file is empty: ${source.path}` : 'the prompt is empty');
      return context ? `## CONTEXT\n${context}\n\n${body}` : body;
    }
  }
}

/** A short name for progress lines: the procedure name, the prompt file name, or 'prompt'. */
export function promptLabel(source: PromptSource): string {
  return source.kind === 'procedure' ? source.name : source.kind === 'file' ? source.path : 'prompt';
}
