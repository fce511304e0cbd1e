// The Gemini CLI adapter: `gemini -p "" -o stream-json` with the prompt on stdin (gemini prepends stdin to
// -p), and the parser of its stream-json lines (init, message, tool_use, tool_result, error, result).
import { missingBinaryMessage } from './doctor.js';
import { z } from 'zod';
import type { ErrorKind, Usage } from '../core/types.js';
import { defaultDeps, type AdapterDeps } from './adapter-deps.js';
import { classifiedEvent, classifyOutputTail, classifyText, errorEvent, shortMessage } from './classify.js';
import { count, figure, jsonlParser } from './jsonl.js';
import type { AgentAdapter, AgentEvent, Invocation, InvocationOptions, StreamParser } from './types.js';

const statsSchema = z.lazy(() =>
  z.looseObject({
    total_tokens: figure(),
    input_tokens: figure(),
    output_tokens: figure(),
    cached: figure(),
    input: figure(),
    models: z.record(z.string(), z.unknown()).nullish(),
  }),
);

const errorSchema = z.lazy(() => z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }));

/** One stream-json line of the Gemini CLI (the fields Ringmaster reads; everything else passes through). */
const geminiLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    timestamp: z.string().optional(),
    session_id: z.string().optional(),
    model: z.string().optional(),
    role: z.string().optional(),
    content: z.string().optional(),
    delta: z.boolean().optional(),
    tool_name: z.string().optional(),
    tool_id: z.string().optional(),
    parameters: z.unknown().optional(),
    status: z.string().optional(),
    output: z.string().nullish(),
    error: z.union([errorSchema, z.string()]).nullish(),
    severity: z.string().optional(),
    message: z.string().optional(),
    stats: statsSchema.nullish(),
  }),
);

/** A validated Gemini CLI stream-json line. */
export type GeminiLine = z.infer<typeof geminiLineSchema>;

/** Exit codes of the Gemini CLI (its own, plus API errors as the HTTP status mod 256). */
const EXIT_KINDS: Record<number, { kind: ErrorKind; message: string }> = {
  41: { kind: 'auth', message: 'Gemini CLI is not authenticated: set GEMINI_API_KEY (or log in with `gemini`)' },
  53: { kind: 'agent_error', message: 'Gemini CLI reached its session turn limit' },
  145: { kind: 'auth', message: 'the Gemini API refused the credentials (HTTP 401)' },
  147: { kind: 'auth', message: 'the Gemini API refused access (HTTP 403)' },
  173: { kind: 'rate_limit', message: 'the Gemini API rate limit was hit (HTTP 429)' },
  244: { kind: 'overloaded', message: 'the Gemini API failed (HTTP 500)' },
  246: { kind: 'overloaded', message: 'the Gemini API failed (HTTP 502)' },
  247: { kind: 'overloaded', message: 'the Gemini API is unavailable (HTTP 503)' },
  248: { kind: 'overloaded', message: 'the Gemini API timed out (HTTP 504)' },
};

/** The HTTP status inside a Gemini API error text such as `[API Error: {"error":{"code":401,...}}]`. */
export function apiErrorStatus(message: string): number | null {
  const match = /"code"\s*:\s*(\d{3})\b/.exec(message) ?? /\bstatus(?: code)?:? (\d{3})\b/i.exec(message);
  return match?.[1] === undefined ? null : Number(match[1]);
}

function toUsage(stats: z.infer<typeof statsSchema>): Usage {
  const cached = count(stats.cached);
  // `input` is the uncached part of the prompt; older versions only report input_tokens (cached included).
  const input = stats.input ?? Math.max(0, count(stats.input_tokens) - cached);
  return { tokensIn: count(input), tokensOut: count(stats.output_tokens), cacheRead: cached, cacheWrite: 0 };
}

function errorText(error: GeminiLine['error']): string | null {
  if (error === null || error === undefined) return null;
  if (typeof error === 'string') return error;
  return error.message ?? error.type ?? null;
}

/** A fresh parser of one Gemini CLI run's stdout. Assistant deltas are joined into one text event per message. */
export function createGeminiParser(deps: AdapterDeps = defaultDeps()): StreamParser {
  const toolNames = new Map<string, string>();
  let pending = '';
  let model: string | null = null;

  const flush = (events: AgentEvent[]): AgentEvent[] => {
    if (pending !== '') events.push({ type: 'text', text: pending });
    pending = '';
    return events;
  };

  const handle = (line: GeminiLine): AgentEvent[] => {
    if (line.type === 'message' && line.role === 'assistant') {
      if (line.content === undefined || line.content === '') return [];
      if (line.delta === true) {
        pending += line.content;
        return [];
      }
      return flush([]).concat({ type: 'text', text: line.content });
    }
    const events = flush([]);
    switch (line.type) {
      case 'init':
        model = line.model ?? model;
        if (line.session_id !== undefined) events.push({ type: 'session', id: line.session_id, model });
        return events;
      case 'tool_use': {
        const name = line.tool_name ?? 'unknown';
        if (line.tool_id !== undefined) toolNames.set(line.tool_id, name);
        events.push({ type: 'tool_call', name, input: line.parameters ?? null });
        return events;
      }
      case 'tool_result': {
        const name = line.tool_id !== undefined ? (toolNames.get(line.tool_id) ?? null) : null;
        const isError = line.status !== undefined && line.status !== 'success';
        events.push({ type: 'tool_result', name, output: line.output ?? errorText(line.error) ?? '', isError });
        return events;
      }
      case 'error': {
        // Non-fatal notices (e.g. a loop was detected) come as warnings; only errors are classified.
        if (line.severity === 'error' && line.message !== undefined) {
          events.push(errorEvent(shortMessage(line.message), apiErrorStatus(line.message), deps.clock()));
        }
        return events;
      }
      case 'result': {
        if (line.stats) {
          const models = line.stats.models ? Object.keys(line.stats.models) : [];
          events.push({ type: 'usage', usage: toUsage(line.stats), model: models[0] ?? model, cumulative: true });
        }
        const isError = line.status !== undefined && line.status !== 'success';
        if (isError) {
          const message = errorText(line.error) ?? `gemini result status ${line.status ?? 'unknown'}`;
          const status = apiErrorStatus(message);
          const c = classifyText(message, status, deps.clock()) ?? { kind: 'agent_error' as const, resetAtMs: null };
          events.push(classifiedEvent(c, shortMessage(message), status));
        }
        events.push({ type: 'result', isError, text: null });
        return events;
      }
      default:
        // `message` lines with role user echo the prompt: never agent text.
        return events;
    }
  };
  return jsonlParser(geminiLineSchema, handle, () => flush([]));
}

/** Builds the Gemini CLI adapter; `deps` injects the clock. */
export function createGeminiAdapter(deps: AdapterDeps = defaultDeps()): AgentAdapter {
  return {
    name: 'gemini',
    displayName: 'Gemini CLI',
    format: 'jsonl',
    supportsResume: true,
    buildInvocation(options: InvocationOptions): Invocation {
      // `-p ""` selects headless mode; the prompt comes on stdin (gemini prepends stdin to -p), never argv.
      const args = ['-p', '', '--output-format', 'stream-json'];
      if (options.model !== null) args.push('--model', options.model);
      if (options.permissionMode === 'bypass') args.push('--yolo');
      // Without --skip-trust a headless run in an untrusted folder exits 55.
      args.push('--skip-trust');
      if (options.resumeSessionId !== null) args.push('--resume', options.resumeSessionId);
      args.push(...options.extraArgs);
      return { command: 'gemini', args, env: { ...options.env }, stdin: options.prompt };
    },
    createParser: () => createGeminiParser(deps),
    classifyExit(exitCode, outputTail) {
      const c = classifyOutputTail(exitCode, outputTail, deps.clock());
      if (c?.kind === 'missing_binary') {
        return { kind: c.kind, message: missingBinaryMessage('gemini') };
      }
      if (c?.kind === 'usage_limit') return { kind: c.kind, message: shortMessage(outputTail, 300) };
      const known = exitCode === null ? undefined : EXIT_KINDS[exitCode];
      if (known !== undefined) return known;
      if (c === null) return null;
      if (c.kind === 'auth') {
        return { kind: c.kind, message: `Gemini CLI is not authenticated: set GEMINI_API_KEY. (${shortMessage(outputTail, 200)})` };
      }
      return { kind: c.kind, message: shortMessage(outputTail, 300) };
    },
  };
}

/** The Gemini CLI adapter with the real clock. */
export const geminiAdapter: AgentAdapter = createGeminiAdapter();
