// The Cursor adapter: `cursor-agent -p --output-format stream-json`, and the parser of its lines
// (system/init, user echo, assistant, tool_call started/completed, result). Cursor reports no token usage.
// [DOCS] Not run against a fake here: Cursor needs its own service (CURSOR_API_KEY or a login).
import { z } from 'zod';
import { defaultDeps, type AdapterDeps } from './adapter-deps.js';
import { classifyOutputTail, errorEvent, shortMessage } from './classify.js';
import { jsonlParser } from './jsonl.js';
import type { AgentAdapter, AgentEvent, Invocation, InvocationOptions, StreamParser } from './types.js';

const cursorLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    subtype: z.string().optional(),
    session_id: z.string().optional(),
    model: z.string().optional(),
    message: z
      .looseObject({ role: z.string().optional(), content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional() })
      .optional(),
    call_id: z.string().optional(),
    tool_call: z.record(z.string(), z.unknown()).optional(),
    is_error: z.boolean().optional(),
    result: z.string().optional(),
    error: z.unknown().optional(),
  }),
);

/** A validated Cursor stream-json line. */
export type CursorLine = z.infer<typeof cursorLineSchema>;

/** `{readToolCall: {args, result}}` -> name "read", args, result. */
function toolCallParts(toolCall: Record<string, unknown> | undefined): { name: string; args: unknown; result: unknown } {
  const [key, value] = Object.entries(toolCall ?? {})[0] ?? ['tool', {}];
  const body = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  if (key === 'function' && typeof body.name === 'string') return { name: body.name, args: body.arguments ?? null, result: body.result };
  return { name: key.replace(/ToolCall$/, ''), args: body.args ?? null, result: body.result };
}

function resultOutput(result: unknown): { output: string; isError: boolean } {
  if (typeof result !== 'object' || result === null) return { output: typeof result === 'string' ? result : '', isError: false };
  const r = result as Record<string, unknown>;
  if ('error' in r || 'failure' in r) return { output: JSON.stringify(r.error ?? r.failure), isError: true };
  const success = (r.success ?? r) as Record<string, unknown>;
  return { output: typeof success.content === 'string' ? success.content : JSON.stringify(success), isError: false };
}

/** A fresh parser of one Cursor run's stdout. */
export function createCursorParser(deps: AdapterDeps = defaultDeps()): StreamParser {
  let model: string | null = null;
  let sawAssistantText = false;
  const handle = (line: CursorLine): AgentEvent[] => {
    switch (line.type) {
      case 'system':
        model = line.model ?? model;
        return line.subtype === 'init' && line.session_id !== undefined ? [{ type: 'session', id: line.session_id, model }] : [];
      case 'assistant': {
        const text = (line.message?.content ?? []).map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
        if (text === '') return [];
        sawAssistantText = true;
        return [{ type: 'text', text }];
      }
      case 'tool_call': {
        const { name, args, result } = toolCallParts(line.tool_call);
        if (line.subtype === 'started') return [{ type: 'tool_call', name, input: args }];
        if (line.subtype === 'completed') return [{ type: 'tool_result', name, ...resultOutput(result) }];
        return [];
      }
      case 'result': {
        const events: AgentEvent[] = [];
        if (line.session_id !== undefined && line.session_id !== '') events.push({ type: 'session', id: line.session_id, model });
        const isError = line.is_error === true || (line.subtype !== undefined && line.subtype !== 'success');
        const text = line.result ?? null;
        if (!isError && text !== null && text !== '' && !sawAssistantText) events.push({ type: 'text', text });
        if (isError) {
          const message = text ?? (typeof line.error === 'string' ? line.error : JSON.stringify(line.error ?? line.subtype ?? 'error'));
          events.push(errorEvent(shortMessage(message), null, deps.clock()));
        }
        events.push({ type: 'result', isError, text });
        return events;
      }
      case 'error': {
        const message = typeof line.error === 'string' ? line.error : JSON.stringify(line.error ?? 'error');
        return [errorEvent(shortMessage(message), null, deps.clock())];
      }
      default:
        // `user` echoes the prompt: never text.
        return [];
    }
  };
  return jsonlParser(cursorLineSchema, handle);
}

/**
 * Builds the Cursor adapter. Cursor's documented headless form takes the prompt as an argument (reading it
 * from stdin is not documented), so it goes in argv as one element after `--`: no shell is involved.
 */
export function createCursorAdapter(deps: AdapterDeps = defaultDeps()): AgentAdapter {
  return {
    name: 'cursor',
    displayName: 'Cursor',
    format: 'jsonl',
    supportsResume: true,
    buildInvocation(options: InvocationOptions): Invocation {
      const args = ['-p', '--output-format', 'stream-json'];
      if (options.model !== null) args.push('--model', options.model);
      if (options.permissionMode === 'bypass') args.push('--force');
      if (options.resumeSessionId !== null) args.push('--resume', options.resumeSessionId);
      args.push(...options.extraArgs, '--', options.prompt);
      return { command: 'cursor-agent', args, env: { ...options.env }, stdin: null };
    },
    createParser: () => createCursorParser(deps),
    classifyExit(exitCode, outputTail) {
      const c = classifyOutputTail(exitCode, outputTail, deps.clock());
      if (c === null) return null;
      if (c.kind === 'missing_binary') return { kind: c.kind, message: 'cursor-agent not found: install it with `curl https://cursor.com/install -fsS | bash`' };
      if (c.kind === 'auth') return { kind: c.kind, message: `Cursor is not authenticated: set CURSOR_API_KEY or run \`cursor-agent login\`. (${shortMessage(outputTail, 200)})` };
      return { kind: c.kind, message: shortMessage(outputTail, 300) };
    },
  };
}

/** The Cursor adapter with the real clock. */
export const cursorAdapter: AgentAdapter = createCursorAdapter();
