// The GitHub Copilot CLI adapter: `copilot --output-format json` with the prompt on stdin, and the parser of
// its session events (assistant.message, tool.execution_complete, session.error, result). Copilot keeps
// token counts out of stdout: they are read after the run from its session log (see copilot-usage.ts).
import { missingBinaryMessage } from './doctor.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ErrorKind } from '../core/types.js';
import { defaultDeps, type AdapterDeps } from './adapter-deps.js';
import { classifiedEvent, classifyOutputTail, classifyText, shortMessage, type Classified } from './classify.js';
import { readCopilotSessionUsage } from './copilot-usage.js';
import { contentText, jsonlParser } from './jsonl.js';
import { parseResetTime } from './reset-time.js';
import type { AgentAdapter, AgentEvent, Invocation, InvocationOptions, StreamParser } from './types.js';

const toolRequestSchema = z.lazy(() =>
  z.looseObject({
    toolCallId: z.string().optional(),
    name: z.string().optional(),
    arguments: z.unknown().optional(),
  }),
);

const dataSchema = z.lazy(() =>
  z.looseObject({
    content: z.string().optional(),
    model: z.string().optional(),
    toolRequests: z.array(toolRequestSchema).optional(),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    success: z.boolean().optional(),
    // Shapes differ by event type (model.call_final_result has a string result): read them loosely.
    result: z.unknown().optional(),
    error: z.unknown().optional(),
    errorType: z.string().optional(),
    errorCode: z.string().optional(),
    message: z.string().optional(),
    statusCode: z.number().nullish(),
  }),
);

/** One `copilot --output-format json` line (the fields Ringmaster reads; everything else passes through). */
const copilotLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    data: dataSchema.optional(),
    /** Set on events of sub-agents; only the main agent's text counts. */
    agentId: z.string().optional(),
    sessionId: z.string().optional(),
    exitCode: z.number().optional(),
  }),
);

/** A validated Copilot CLI JSON line. */
export type CopilotLine = z.infer<typeof copilotLineSchema>;

/** session.error `errorType` values and the error kind each means. */
const ERROR_TYPES: Record<string, ErrorKind> = {
  authentication: 'auth',
  authorization: 'auth',
  quota: 'usage_limit',
  rate_limit: 'rate_limit',
};

function classifySessionError(data: z.infer<typeof dataSchema>, deps: AdapterDeps): Classified {
  const message = data.message ?? '';
  const clock = deps.clock();
  const byType = data.errorType !== undefined ? ERROR_TYPES[data.errorType] : undefined;
  if (byType === 'usage_limit' || byType === 'rate_limit') return { kind: byType, resetAtMs: parseResetTime(message, clock) };
  if (byType !== undefined) return { kind: byType, resetAtMs: null };
  return classifyText(message, data.statusCode ?? null, clock) ?? { kind: 'agent_error', resetAtMs: null };
}

/** The `message` (or the string itself) of a loosely typed error value. */
function toolError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return '';
}

/** The `content` of a tool's result object. */
function resultContent(result: unknown): string {
  if (typeof result === 'object' && result !== null && 'content' in result) return contentText(result.content);
  return typeof result === 'string' ? result : '';
}

/**
 * A fresh parser of one Copilot run's stdout. `sessionStateDir` is Copilot's session-state directory
 * (`$COPILOT_HOME/session-state`, default ~/.copilot/session-state): at the end of the stream the run's
 * tokens are read from the session log there; null = tokens unknown.
 */
export function createCopilotParser(deps: AdapterDeps = defaultDeps(), sessionStateDir: string | null = null): StreamParser {
  const toolNames = new Map<string, string>();
  let sessionId: string | null = null;
  let model: string | null = null;

  const handle = (line: CopilotLine): AgentEvent[] => {
    const events: AgentEvent[] = [];
    const data = line.data;
    switch (line.type) {
      case 'assistant.message': {
        if (line.agentId !== undefined || data === undefined) return events;
        if (data.model !== undefined) model = data.model;
        if (data.content !== undefined && data.content !== '') events.push({ type: 'text', text: data.content });
        for (const request of data.toolRequests ?? []) {
          const name = request.name ?? 'unknown';
          if (request.toolCallId !== undefined) toolNames.set(request.toolCallId, name);
          events.push({ type: 'tool_call', name, input: request.arguments ?? null });
        }
        return events;
      }
      case 'tool.execution_complete': {
        if (data === undefined) return events;
        const name = data.toolName ?? (data.toolCallId !== undefined ? (toolNames.get(data.toolCallId) ?? null) : null);
        const isError = data.success === false;
        const output = isError ? toolError(data.error) || resultContent(data.result) : resultContent(data.result);
        events.push({ type: 'tool_result', name, output, isError });
        return events;
      }
      case 'session.error': {
        if (data === undefined) return events;
        const message = data.message ?? data.errorType ?? 'copilot session error';
        events.push(classifiedEvent(classifySessionError(data, deps), shortMessage(message), data.statusCode ?? null));
        return events;
      }
      case 'result': {
        if (line.sessionId !== undefined) {
          sessionId = line.sessionId;
          events.push({ type: 'session', id: line.sessionId, model });
        }
        events.push({ type: 'result', isError: line.exitCode !== undefined && line.exitCode !== 0, text: null });
        return events;
      }
      default:
        // user.message echoes the prompt; deltas repeat assistant.message: neither is read as text.
        return events;
    }
  };

  const end = (): AgentEvent[] => {
    if (sessionId === null || sessionStateDir === null) return [];
    const usage = readCopilotSessionUsage(join(sessionStateDir, sessionId, 'events.jsonl'));
    return usage === null ? [] : [{ type: 'usage', usage: usage.usage, model: usage.model ?? model, cumulative: true }];
  };
  return jsonlParser(copilotLineSchema, handle, end);
}

/** Copilot's session-state directory for an environment and argv (`--config-dir`, COPILOT_HOME, ~/.copilot). */
export function copilotSessionStateDir(env: Readonly<Record<string, string | undefined>>, args: readonly string[]): string {
  const flag = args.indexOf('--config-dir');
  const configDir = flag >= 0 ? args[flag + 1] : undefined;
  const home = configDir ?? env.COPILOT_HOME ?? join(env.HOME ?? homedir(), '.copilot');
  return join(home, 'session-state');
}

/**
 * Builds the Copilot CLI adapter; `deps` injects the clock. The parser reads tokens from the session-state
 * directory the invocation's options point at (`--config-dir`, COPILOT_HOME, ~/.copilot), unless
 * `fixedSessionStateDir` pins one.
 */
export function createCopilotAdapter(deps: AdapterDeps = defaultDeps(), fixedSessionStateDir: string | null = null): AgentAdapter {
  return {
    name: 'copilot',
    displayName: 'GitHub Copilot CLI',
    format: 'jsonl',
    supportsResume: true,
    buildInvocation(options: InvocationOptions): Invocation {
      // No -p: without it and with stdin not a terminal, copilot reads the prompt from stdin.
      const args = ['--output-format', 'json'];
      if (options.model !== null) args.push('--model', options.model);
      if (options.permissionMode === 'bypass') args.push('--yolo');
      if (options.resumeSessionId !== null) args.push('--resume', options.resumeSessionId);
      args.push(...options.extraArgs);
      return { command: 'copilot', args, env: { ...options.env }, stdin: options.prompt };
    },
    createParser: (options) => createCopilotParser(deps, fixedSessionStateDir ?? copilotSessionStateDir(options.env, options.extraArgs)),
    classifyExit(exitCode, outputTail) {
      const c = classifyOutputTail(exitCode, outputTail, deps.clock());
      if (c === null) return null;
      if (c.kind === 'missing_binary') {
        return { kind: c.kind, message: missingBinaryMessage('copilot') };
      }
      if (c.kind === 'auth') {
        return { kind: c.kind, message: `Copilot CLI is not authenticated: run \`copilot login\` or set GH_TOKEN. (${shortMessage(outputTail, 200)})` };
      }
      return { kind: c.kind, message: shortMessage(outputTail, 300) };
    },
  };
}

/** The Copilot CLI adapter with the real clock. */
export const copilotAdapter: AgentAdapter = createCopilotAdapter();
