// The opencode adapter: `opencode run --format json` with the prompt on stdin, and the parser of its JSON
// events (step_start, text, tool_use, step_finish with tokens and cost, error with statusCode).
import { missingBinaryMessage } from './doctor.js';
import { z } from 'zod';
import type { Usage } from '../core/types.js';
import { defaultDeps, type AdapterDeps } from './adapter-deps.js';
import { classifiedEvent, classifyOutputTail, errorEvent, shortMessage } from './classify.js';
import { count, figure, jsonlParser } from './jsonl.js';
import { parseResetTime } from './reset-time.js';
import type { AgentAdapter, AgentEvent, Invocation, InvocationOptions, StreamParser } from './types.js';

const tokensSchema = z.lazy(() =>
  z.looseObject({
    input: figure(),
    output: figure(),
    reasoning: figure(),
    cache: z.looseObject({ read: figure(), write: figure() }).nullish(),
  }),
);

const partSchema = z.lazy(() =>
  z.looseObject({
    type: z.string().optional(),
    text: z.string().optional(),
    tool: z.string().optional(),
    state: z
      .looseObject({
        status: z.string().optional(),
        input: z.unknown().optional(),
        output: z.string().nullish(),
        error: z.string().nullish(),
      })
      .optional(),
    tokens: tokensSchema.nullish(),
    cost: figure(),
    /** step_finish: `tool-calls` (the turn goes on) or `stop` (its last step). */
    reason: z.string().optional(),
  }),
);

const errorSchema = z.lazy(() =>
  z.looseObject({
    name: z.string().optional(),
    data: z
      .looseObject({
        message: z.string().nullish(),
        statusCode: z.number().nullish(),
        isRetryable: z.boolean().nullish(),
      })
      .nullish(),
  }),
);

/** One `opencode run --format json` line (the fields Ringmaster reads; everything else passes through). */
const opencodeLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    timestamp: z.number().optional(),
    sessionID: z.string().optional(),
    part: partSchema.optional(),
    error: errorSchema.optional(),
  }),
);

/** A validated opencode JSON line. */
export type OpencodeLine = z.infer<typeof opencodeLineSchema>;

function toUsage(tokens: z.infer<typeof tokensSchema>): Usage {
  return {
    tokensIn: count(tokens.input),
    // Reasoning tokens are billed as output.
    tokensOut: count(tokens.output) + count(tokens.reasoning),
    cacheRead: count(tokens.cache?.read),
    cacheWrite: count(tokens.cache?.write),
  };
}

/** OpenAI's 429 "Rate limit reached for requests" is a rate limit, not a usage limit ("limit reached"). */
function isPlainRateLimit(message: string, status: number | null): boolean {
  return status === 429 && /\brate[_ ]limit/i.test(message) && !/quota|usage[_ ]limit|insufficient|billing/i.test(message);
}

/**
 * A fresh parser of one opencode run's stdout. Each step_finish carries that step's tokens and cost:
 * both are increments. A cost of 0 with tokens means opencode has no price for the model: no cost
 * event then, so the runner prices the tokens itself or marks the cost unknown (never a silent 0).
 */
export function createOpencodeParser(deps: AdapterDeps = defaultDeps()): StreamParser {
  let sessionId: string | null = null;

  const handle = (line: OpencodeLine): AgentEvent[] => {
    const events: AgentEvent[] = [];
    if (line.sessionID !== undefined && line.sessionID !== sessionId) {
      sessionId = line.sessionID;
      events.push({ type: 'session', id: sessionId, model: null });
    }
    const part = line.part;
    switch (line.type) {
      case 'text':
        if (part?.text !== undefined && part.text !== '') events.push({ type: 'text', text: part.text });
        return events;
      case 'tool_use': {
        const name = part?.tool ?? 'unknown';
        const state = part?.state;
        events.push({ type: 'tool_call', name, input: state?.input ?? null });
        if (state?.status === 'completed' || state?.status === 'error') {
          const isError = state.status === 'error';
          events.push({ type: 'tool_result', name, output: (isError ? state.error : state.output) ?? '', isError });
        }
        return events;
      }
      case 'step_finish': {
        if (part?.tokens) {
          const usage = toUsage(part.tokens);
          events.push({ type: 'usage', usage, model: null, cumulative: false });
          const anyTokens = usage.tokensIn + usage.tokensOut + usage.cacheRead + usage.cacheWrite > 0;
          const cost = part.cost;
          if (typeof cost === 'number' && (cost !== 0 || !anyTokens)) {
            events.push({ type: 'cost', usd: cost, cumulative: false });
          }
        }
        // The last step of the turn: its figures are the turn's last (the run's budget does not stop it for them).
        if (part?.reason === 'stop') events.push({ type: 'result', isError: false, text: null });
        return events;
      }
      case 'error': {
        const data = line.error?.data;
        const message = data?.message ?? line.error?.name ?? 'opencode error';
        const status = data?.statusCode ?? null;
        if (isPlainRateLimit(message, status)) {
          const c = { kind: 'rate_limit' as const, resetAtMs: parseResetTime(message, deps.clock()) };
          events.push(classifiedEvent(c, shortMessage(message), status));
        } else {
          events.push(errorEvent(shortMessage(message), status, deps.clock()));
        }
        return events;
      }
      default:
        return events;
    }
  };
  return jsonlParser(opencodeLineSchema, handle);
}

/** Builds the opencode adapter; `deps` injects the clock. */
export function createOpencodeAdapter(deps: AdapterDeps = defaultDeps()): AgentAdapter {
  return {
    name: 'opencode',
    displayName: 'opencode',
    format: 'jsonl',
    supportsResume: true,
    buildInvocation(options: InvocationOptions): Invocation {
      // No message argument: `opencode run` reads the prompt from stdin.
      const args = ['run', '--format', 'json'];
      if (options.model !== null) args.push('--model', options.model);
      // Without --auto, permission requests (e.g. writing outside the project) are auto-rejected headless.
      if (options.permissionMode === 'bypass') args.push('--auto');
      if (options.resumeSessionId !== null) args.push('--session', options.resumeSessionId);
      args.push(...options.extraArgs);
      return { command: 'opencode', args, env: { ...options.env }, stdin: options.prompt };
    },
    createParser: () => createOpencodeParser(deps),
    classifyExit(exitCode, outputTail) {
      const c = classifyOutputTail(exitCode, outputTail, deps.clock());
      if (c === null) return null;
      if (c.kind === 'missing_binary') {
        return { kind: c.kind, message: missingBinaryMessage('opencode') };
      }
      if (c.kind === 'auth') {
        return { kind: c.kind, message: `opencode is not authenticated: run \`opencode auth login\` or set the provider's API key. (${shortMessage(outputTail, 200)})` };
      }
      return { kind: c.kind, message: shortMessage(outputTail, 300) };
    },
  };
}

/** The opencode adapter with the real clock. */
export const opencodeAdapter: AgentAdapter = createOpencodeAdapter();
