// The prompt of one workflow iteration: the step's inline text or its command file (re-read every time:
// state lives in files), with the variables substituted.
import { readFileSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import type { PromptRef } from './types.js';
import { substituteVariables, type PromptVariables } from './variables.js';

/** The template of a step's prompt, before substitution; a missing or empty command file is a UserError. */
export function promptTemplate(prompt: PromptRef): string {
  if (prompt.kind === 'text') return prompt.text;
  let text: string;
  try {
    text = readFileSync(prompt.path, 'utf8').replace(/^\uFEFF/, ''); // an editor's byte order mark is not the prompt's
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `command '${prompt.name}': prompt file not found: ${prompt.path}` : `command '${prompt.name}': cannot read ${prompt.path}: ${(error as Error).message}`);
  }
  if (text.trim() === '') throw new UserError(`command '${prompt.name}': prompt file is empty: ${prompt.path}`);
  return text;
}

/** The full prompt of one iteration. */
export function iterationPrompt(prompt: PromptRef, vars: PromptVariables): string {
  return substituteVariables(promptTemplate(prompt), vars);
}
