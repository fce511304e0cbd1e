// The Claude Code adapter: `claude -p --output-format stream-json --verbose`, prompt on stdin, and the
// parser of its SDKMessage lines (system/init, assistant, user, rate_limit_event, result).
import { missingBinaryMessage } from './doctor.js';
import { z } from 'zod';
import type { Usage } from '../core/types.js';
import { defaultDeps, type AdapterDeps } from './adapter-deps.js';
import { classifiedEvent, classifyOutputTail, classifyText, errorEvent, shortMessage, type Classified } from './classify.js';
import { contentText, count, figure, jsonlParser } from './jsonl.js';
import { resetAtFromEpochSeconds } from './reset-time.js';
import type { AgentAdapter, AgentEvent, Invocation, InvocationOptions, StreamParser } from './types.js';

const usageSchema = z.lazy(() =>
  z.looseObject({
    input_tokens: figure(),
    output_tokens: figure(),
    cache_creation_input_tokens: figure(),
    cache_read_input_tokens: figure(),
  }),
);

const blockSchema = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    text: z.string().optional(),
    id: z.string().optional(),
    name: z.string().optional(),
    input: z.unknown().optional(),
    tool_use_id: z.string().optional(),
    content: z.unknown().optional(),
    is_error: z.boolean().nullish(),
  }),
);

const rateLimitInfoSchema = z.lazy(() =>
  z.looseObject({
    status: z.string().optional(),
    resetsAt: z.number().nullish(),
    rateLimitType: z.string().nullish(),
  }),
);

/** One stream-json line of Claude Code (the fields Ringmaster reads; everything else passes through). */
const claudeLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    subtype: z.string().optional(),
    session_id: z.string().optional(),
    model: z.string().optional(),
    message: z
      .looseObject({
        id: z.string().optional(),
        model: z.string().optional(),
        content: z.union([z.string(), z.array(blockSchema)]).optional(),
        usage: usageSchema.nullish(),
      })
      .optional(),
    error: z.unknown().optional(),
    api_error_status: z.number().nullish(),
    api_error_params: z.looseObject({ rate_limit_info: rateLimitInfoSchema.nullish() }).nullish(),
    rate_limit_info: rateLimitInfoSchema.optional(),
    is_error: z.boolean().optional(),
    result: z.string().optional(),
    errors: z.array(z.string()).optional(),
    total_cost_usd: figure(),
    usage: usageSchema.nullish(),
    modelUsage: z.record(z.string(), z.unknown()).optional(),
    error_status: z.number().nullish(),
  }),
);

/** A validated Claude stream-json line. */
export type ClaudeLine = z.infer<typeof claudeLineSchema>;

function toUsage(u: z.infer<typeof usageSchema>): Usage {
  return {
    tokensIn: count(u.input_tokens),
    tokensOut: count(u.output_tokens),
    cacheRead: count(u.cache_read_input_tokens),
    cacheWrite: count(u.cache_creation_input_tokens),
  };
}

/** Assistant `error` values (SDKAssistantMessageError) and what they mean to the runner. */
function classifyAssistantError(code: string, text: string, status: number | null, deps: AdapterDeps): Classified {
  const clock = deps.clock();
  const fromText = classifyText(text, status, clock);
  switch (code) {
    case 'authentication_failed':
    case 'billing_error':
      return { kind: 'auth', resetAtMs: null };
    case 'usage_limit_reached':
      return { kind: 'usage_limit', resetAtMs: fromText?.resetAtMs ?? null };
    case 'rate_limit':
      return fromText?.kind === 'usage_limit' ? fromText : { kind: 'rate_limit', resetAtMs: fromText?.resetAtMs ?? null };
    case 'server_error':
      return { kind: 'overloaded', resetAtMs: null };
    default:
      return fromText ?? { kind: 'agent_error', resetAtMs: null };
  }
}

/** A fresh parser of one Claude run's stdout (also Amp's, which streams the same SDKMessage shapes). */
export function createClaudeParser(deps: AdapterDeps = defaultDeps()): StreamParser {
  const stream = new ClaudeStream(deps);
  return jsonlParser(claudeLineSchema, (line) => stream.handle(line));
}

/** What one Claude run's stream has said so far, and the events each of its lines means. */
class ClaudeStream {
  private readonly toolNames = new Map<string, string>();
  private readonly messageUsage = new Map<string, Usage>();
  private model: string | null = null;
  private sawAssistantText = false;
  private classifiedError = false;
  private limitResetAtMs: number | null = null;

  constructor(private readonly deps: AdapterDeps) {}

  handle(line: ClaudeLine): AgentEvent[] {
    switch (line.type) {
      case 'system':
        return this.system(line);
      case 'assistant':
        return this.assistant(line);
      case 'user':
        return this.user(line);
      case 'rate_limit_event':
        return this.rateLimit(line);
      case 'result':
        return this.result(line);
      default:
        return [];
    }
  }

  private system(line: ClaudeLine): AgentEvent[] {
    if (line.subtype !== 'init' || line.session_id === undefined) return [];
    this.model = line.model ?? this.model;
    return [{ type: 'session', id: line.session_id, model: this.model }];
  }

  private assistant(line: ClaudeLine): AgentEvent[] {
    const message = line.message;
    const blocks = Array.isArray(message?.content) ? message.content : [];
    if (typeof line.error === 'string' || message?.model === '<synthetic>') {
      const text = typeof message?.content === 'string' ? message.content : blocks.map((b) => b.text ?? '').join('');
      return [this.assistantError(line, text)];
    }
    if (message?.model !== undefined) this.model = message.model;
    const events: AgentEvent[] = [];
    for (const block of blocks) {
      if (block.type === 'text' && block.text !== undefined && block.text !== '') {
        this.sawAssistantText = true;
        events.push({ type: 'text', text: block.text });
      } else if (block.type === 'tool_use' && block.name !== undefined) {
        if (block.id !== undefined) this.toolNames.set(block.id, block.name);
        events.push({ type: 'tool_call', name: block.name, input: block.input ?? null });
      }
    }
    if (typeof message?.content === 'string' && message.content !== '') {
      this.sawAssistantText = true;
      events.push({ type: 'text', text: message.content });
    }
    if (message?.usage) {
      // Claude repeats one message id over its content-block lines; Amp sends whole messages without ids.
      this.messageUsage.set(message.id ?? `line-${this.messageUsage.size}`, toUsage(message.usage));
      events.push(this.runningUsage());
    }
    return events;
  }

  /** An assistant message that is an API error (or Claude's own synthetic one), classified. */
  private assistantError(line: ClaudeLine, text: string): AgentEvent {
    const code = typeof line.error === 'string' ? line.error : 'unknown';
    const status = line.api_error_status ?? null;
    const c = classifyAssistantError(code, text, status, this.deps);
    const limited = c.kind === 'usage_limit' || c.kind === 'rate_limit';
    const resetsAt = resetAtFromEpochSeconds(line.api_error_params?.rate_limit_info?.resetsAt);
    if (resetsAt !== null && limited) c.resetAtMs = resetsAt;
    if (c.resetAtMs === null && this.limitResetAtMs !== null && limited) c.resetAtMs = this.limitResetAtMs;
    this.classifiedError = true;
    return classifiedEvent(c, shortMessage(text === '' ? code : text), status);
  }

  private user(line: ClaudeLine): AgentEvent[] {
    const blocks = Array.isArray(line.message?.content) ? line.message.content : [];
    return blocks
      .filter((block) => block.type === 'tool_result')
      .map((block) => {
        const name = block.tool_use_id !== undefined ? (this.toolNames.get(block.tool_use_id) ?? null) : null;
        return { type: 'tool_result', name, output: contentText(block.content), isError: block.is_error === true };
      });
  }

  private rateLimit(line: ClaudeLine): AgentEvent[] {
    const info = line.rate_limit_info;
    if (info?.status !== 'rejected') return [];
    this.limitResetAtMs = resetAtFromEpochSeconds(info.resetsAt);
    this.classifiedError = true;
    const window = info.rateLimitType ?? 'usage';
    return [{ type: 'limit', kind: 'usage_limit', resetAtMs: this.limitResetAtMs, message: `Claude ${window} limit reached` }];
  }

  private result(line: ClaudeLine): AgentEvent[] {
    const events: AgentEvent[] = [];
    if (line.session_id !== undefined) events.push({ type: 'session', id: line.session_id, model: this.model });
    if (line.usage) {
      const usageModel = line.modelUsage ? (Object.keys(line.modelUsage)[0] ?? this.model) : this.model;
      events.push({ type: 'usage', usage: toUsage(line.usage), model: usageModel, cumulative: true });
    }
    if (typeof line.total_cost_usd === 'number') events.push({ type: 'cost', usd: line.total_cost_usd, cumulative: true });
    const isError = line.is_error === true || (line.subtype !== undefined && line.subtype.startsWith('error'));
    const text = line.result ?? null;
    if (!isError && text !== null && text !== '' && !this.sawAssistantText) events.push({ type: 'text', text });
    if (isError && !this.classifiedError) {
      const message = text ?? (typeof line.error === 'string' ? line.error : undefined) ?? line.errors?.join('; ') ?? line.subtype ?? 'error';
      events.push(errorEvent(shortMessage(message), line.api_error_status ?? null, this.deps.clock()));
    }
    events.push({ type: 'result', isError, text });
    return events;
  }

  /** The usage of every message so far (a message's last line counts), as one cumulative figure. */
  private runningUsage(): AgentEvent {
    const total: Usage = { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 };
    for (const u of this.messageUsage.values()) {
      total.tokensIn += u.tokensIn;
      total.tokensOut += u.tokensOut;
      total.cacheRead += u.cacheRead;
      total.cacheWrite += u.cacheWrite;
    }
    return { type: 'usage', usage: total, model: this.model, cumulative: true };
  }
}

/** Builds the Claude Code adapter; `deps` injects the clock and whether we run as root. */
export function createClaudeAdapter(deps: AdapterDeps = defaultDeps()): AgentAdapter {
  return {
    name: 'claude',
    displayName: 'Claude Code',
    format: 'jsonl',
    supportsResume: true,
    buildInvocation(options: InvocationOptions): Invocation {
      const args = ['-p', '--output-format', 'stream-json', '--verbose'];
      if (options.model !== null) args.push('--model', options.model);
      if (options.permissionMode === 'bypass') args.push('--dangerously-skip-permissions');
      if (options.resumeSessionId !== null) args.push('--resume', options.resumeSessionId);
      args.push(...options.extraArgs);
      const env: Record<string, string | undefined> = { ...options.env };
      // As root, Claude refuses --dangerously-skip-permissions unless IS_SANDBOX is exactly "1": whatever the agent
      // inherited (an `IS_SANDBOX=yes` would fail every iteration), its own environment says 1.
      if (options.permissionMode === 'bypass' && deps.isRoot) env.IS_SANDBOX = '1';
      return { command: 'claude', args, env, stdin: options.prompt };
    },
    createParser: () => createClaudeParser(deps),
    classifyExit(exitCode, outputTail) {
      const c = classifyOutputTail(exitCode, outputTail, deps.clock());
      if (c === null) return null;
      if (c.kind === 'missing_binary') {
        return { kind: c.kind, message: missingBinaryMessage('claude') };
      }
      if (c.kind === 'auth') {
        return { kind: c.kind, message: `Claude Code is not authenticated: set ANTHROPIC_API_KEY or run \`claude\` once and /login. (${shortMessage(outputTail, 200)})` };
      }
      // The last line the agent printed (a stream line's own error text, not the raw JSON of the whole tail).
      const last = outputTail.trim().split('\n').pop() ?? outputTail;
      return { kind: c.kind, message: shortMessage(last, 300) };
    },
  };
}

/** The Claude Code adapter with the real clock and uid. */
export const claudeAdapter: AgentAdapter = createClaudeAdapter();
