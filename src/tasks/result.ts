// The structured answer an agent may give at the end of an iteration (docs/tasks.md "Structured result"), as JSON
// in a tag: <ringmaster-result>{"status":"complete","artifacts":["src/a.ts"]}</ringmaster-result>.
// Parsing is bounded (only the end of the text, only so much JSON) and tolerant (code fences, missing
// optional fields, a few synonyms); the last well-formed block wins. Pure: no I/O.
import { z } from 'zod';

/** The structured result of an iteration (docs/tasks.md). */
export type TaskResult =
  | { status: 'continue'; reason: string }
  | { status: 'complete'; artifacts: string[] }
  | { status: 'blocked'; blocker: string }
  | { status: 'failed'; error: string };

/** What the agent's text said: nothing structured, a result (with optional learnings), or a malformed block. */
export type ParsedTaskResult =
  | { kind: 'none' }
  | { kind: 'result'; result: TaskResult; learnings: string[] }
  | { kind: 'invalid'; problem: string };

/** The tag name, for prompts and docs. */
export const RESULT_TAG = 'ringmaster-result';

/** What a task's answer is read from, for the echo rule: the block's opening tag (echoed from the prompt, it is blanked). */
export const TASK_ECHO_SIGNALS: readonly string[] = [`<${RESULT_TAG}>`];

/** Only this much of the end of the agent's text is searched. */
const SCAN_CHARS = 256 * 1024;
/** A block longer than this is not read. */
const MAX_BLOCK_CHARS = 32 * 1024;

const OPEN = /<\s*ringmaster-result\s*>/gi;
const CLOSE = /<\s*\/\s*ringmaster-result\s*>/gi;

/** The bodies of every open..close pair, in order; linear in the text (an unclosed tag costs nothing extra). */
function blocks(text: string): string[] {
  const opens = [...text.matchAll(OPEN)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const closes = [...text.matchAll(CLOSE)].map((m) => m.index);
  const bodies: string[] = [];
  let c = 0;
  for (let o = 0; o < opens.length; o++) {
    const open = opens[o];
    if (!open) break;
    while (c < closes.length && (closes[c] ?? 0) < open.end) c++;
    const close = closes[c];
    if (close === undefined) break;
    // The nearest open before this close starts the block (an unclosed earlier tag is ignored).
    const next = opens[o + 1];
    if (next && next.start < close) continue;
    bodies.push(text.slice(open.end, close));
    c++;
  }
  return bodies;
}

const text = z.string().max(4000);
const list = z.union([z.array(z.string().max(2000)).max(200), z.string().max(2000).transform((s) => [s])]);

const blockSchema = z.object({
  status: z.string(),
  reason: text.optional(),
  artifacts: list.optional(),
  blocker: text.optional(),
  error: text.optional(),
  message: text.optional(),
  learnings: list.optional(),
});

const SYNONYMS: Record<string, TaskResult['status']> = {
  continue: 'continue',
  in_progress: 'continue',
  progress: 'continue',
  complete: 'complete',
  completed: 'complete',
  done: 'complete',
  success: 'complete',
  blocked: 'blocked',
  failed: 'failed',
  failure: 'failed',
  error: 'failed',
};

function unfence(body: string): string {
  const fenced = /^\s*(?:```|~~~)[\w-]*\s*\n([\s\S]*?)\n\s*(?:```|~~~)\s*$/.exec(body);
  return (fenced?.[1] ?? body).trim();
}

function readBlock(body: string): ParsedTaskResult {
  if (body.length > MAX_BLOCK_CHARS) return { kind: 'invalid', problem: `the ${RESULT_TAG} block is longer than ${MAX_BLOCK_CHARS} characters` };
  let data: unknown;
  try {
    data = JSON.parse(unfence(body));
  } catch (error) {
    return { kind: 'invalid', problem: `the ${RESULT_TAG} block is not valid JSON (${(error as Error).message})` };
  }
  const parsed = blockSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', problem: `the ${RESULT_TAG} block: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}` };
  }
  const b = parsed.data;
  const status = SYNONYMS[b.status.trim().toLowerCase()];
  if (!status) return { kind: 'invalid', problem: `the ${RESULT_TAG} block: status must be continue, complete, blocked or failed, got ${JSON.stringify(b.status)}` };
  const said = b.message ?? null;
  let result: TaskResult;
  switch (status) {
    case 'continue':
      result = { status, reason: b.reason ?? said ?? '' };
      break;
    case 'complete':
      result = { status, artifacts: b.artifacts ?? [] };
      break;
    case 'blocked':
      result = { status, blocker: b.blocker ?? b.reason ?? said ?? 'no reason given' };
      break;
    case 'failed':
      result = { status, error: b.error ?? b.reason ?? said ?? 'no reason given' };
      break;
  }
  return { kind: 'result', result, learnings: b.learnings ?? [] };
}

/** Finds the agent's structured result in its own text: the last well-formed block wins. */
export function parseTaskResult(agentText: string): ParsedTaskResult {
  const tail = agentText.length > SCAN_CHARS ? agentText.slice(agentText.length - SCAN_CHARS) : agentText;
  let last: ParsedTaskResult = { kind: 'none' };
  for (const body of blocks(tail)) {
    const parsed = readBlock(body);
    if (parsed.kind === 'result' || last.kind !== 'result') last = parsed;
  }
  return last;
}

/** A one-line account of a result for progress notes and events. */
export function describeTaskResult(result: TaskResult): string {
  switch (result.status) {
    case 'continue':
      return result.reason === '' ? 'continue' : `continue: ${result.reason}`;
    case 'complete':
      return result.artifacts.length === 0 ? 'complete' : `complete: ${result.artifacts.join(', ')}`;
    case 'blocked':
      return `blocked: ${result.blocker}`;
    case 'failed':
      return `failed: ${result.error}`;
  }
}
