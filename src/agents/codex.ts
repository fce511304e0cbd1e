// The Codex adapter: `codex exec --json --skip-git-repo-check`, prompt on stdin, resume with
// `codex exec resume <id> -`, and the parser of its ThreadEvent lines (thread/turn/item events).
import { missingBinaryMessage } from './doctor.js';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { defaultDeps, type AdapterDeps } from './adapter-deps.js';
import { classifyOutputTail, classifyText, classifiedEvent, errorEvent, shortMessage } from './classify.js';
import { count, figure, jsonlParser } from './jsonl.js';
import type { AgentAdapter, AgentEvent, Invocation, InvocationOptions, StreamParser } from './types.js';

const itemSchema = z.lazy(() =>
  z.looseObject({
    id: z.string().optional(),
    type: z.string(),
    text: z.string().optional(),
    command: z.string().optional(),
    aggregated_output: z.string().optional(),
    exit_code: z.number().nullish(),
    status: z.string().optional(),
    changes: z.array(z.looseObject({ path: z.string().optional(), kind: z.string().optional() })).optional(),
    server: z.string().optional(),
    tool: z.string().optional(),
    arguments: z.unknown().optional(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
    message: z.string().optional(),
    query: z.string().optional(),
  }),
);

/** One `codex exec --json` line (ThreadEvent). */
const codexLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    thread_id: z.string().optional(),
    item: itemSchema.optional(),
    usage: z
      .looseObject({
        input_tokens: figure(),
        cached_input_tokens: figure(),
        cache_write_input_tokens: figure(),
        output_tokens: figure(),
        reasoning_output_tokens: figure(),
      })
      .optional(),
    error: z.union([z.looseObject({ message: z.string().optional() }), z.string()]).nullish(),
    message: z.string().optional(),
  }),
);

/** A validated Codex JSON line. */
export type CodexLine = z.infer<typeof codexLineSchema>;

function httpStatus(message: string): number | null {
  const m = /\b(?:status|http)\s*:?\s*(\d{3})\b/i.exec(message) ?? /\b(4\d\d|5\d\d)\b/.exec(message);
  return m?.[1] ? Number(m[1]) : null;
}

/** A fresh parser of one `codex exec --json` run; `model` is what the run was configured with (codex never prints it). */
export function createCodexParser(model: string | null = null, deps: AdapterDeps = defaultDeps()): StreamParser {
  let reportedError = false;
  // The first error of a run is its error; later ones repeat it.
  const fail = (message: string): AgentEvent[] => {
    if (reportedError) return [];
    reportedError = true;
    return [errorEvent(shortMessage(message), httpStatus(message), deps.clock())];
  };
  const handle = (line: CodexLine): AgentEvent[] => {
    switch (line.type) {
      case 'thread.started':
        return line.thread_id !== undefined ? [{ type: 'session', id: line.thread_id, model }] : [];
      case 'item.started':
        return line.item ? itemStarted(line.item) : [];
      case 'item.completed':
        return line.item ? itemCompleted(line.item, deps) : [];
      case 'turn.completed':
        return line.usage ? turnCompleted(line.usage, model) : [];
      case 'turn.failed': {
        const message = typeof line.error === 'string' ? line.error : (line.error?.message ?? 'turn failed');
        return [...fail(message), { type: 'result', isError: true, text: null }];
      }
      case 'error':
        return fail(line.message ?? (typeof line.error === 'string' ? line.error : (line.error?.message ?? 'error')));
      default:
        return [];
    }
  };
  return jsonlParser(codexLineSchema, handle);
}

type CodexItem = z.infer<typeof itemSchema>;

/** A tool the agent starts: a shell command or an MCP tool. */
function itemStarted(item: CodexItem): AgentEvent[] {
  if (item.type === 'command_execution') return [{ type: 'tool_call', name: 'shell', input: { command: item.command ?? '' } }];
  if (item.type === 'mcp_tool_call') return [{ type: 'tool_call', name: mcpName(item), input: item.arguments ?? null }];
  return [];
}

/** A finished item: the agent's message, a tool's result, a file change, a web search, a non-fatal error. */
function itemCompleted(item: CodexItem, deps: AdapterDeps): AgentEvent[] {
  switch (item.type) {
    case 'agent_message':
      return item.text !== undefined && item.text !== '' ? [{ type: 'text', text: item.text }] : [];
    case 'command_execution': {
      const isError = item.status === 'failed' || (typeof item.exit_code === 'number' && item.exit_code !== 0);
      return [{ type: 'tool_result', name: 'shell', output: item.aggregated_output ?? '', isError }];
    }
    case 'file_change': {
      const changes = item.changes ?? [];
      const output = changes.map((c) => `${c.kind ?? 'update'} ${c.path ?? ''}`).join('\n');
      return [
        { type: 'tool_call', name: 'apply_patch', input: { changes } },
        { type: 'tool_result', name: 'apply_patch', output, isError: item.status === 'failed' },
      ];
    }
    case 'mcp_tool_call': {
      const output = typeof item.result === 'string' ? item.result : JSON.stringify(item.result ?? item.error ?? null);
      return [{ type: 'tool_result', name: mcpName(item), output, isError: item.status === 'failed' }];
    }
    case 'web_search':
      return [{ type: 'tool_call', name: 'web_search', input: { query: item.query ?? '' } }];
    case 'error': {
      // Non-fatal item errors: only limits and outages matter to the runner.
      const c = item.message !== undefined ? classifyText(item.message, null, deps.clock()) : null;
      return c !== null && item.message !== undefined ? [classifiedEvent(c, shortMessage(item.message), null)] : [];
    }
    default:
      return [];
  }
}

/** The turn's usage (cached input counted apart), and the end of the run: `codex exec` has one turn. */
function turnCompleted(u: NonNullable<CodexLine['usage']>, model: string | null): AgentEvent[] {
  const input = count(u.input_tokens);
  const cached = count(u.cached_input_tokens);
  return [
    {
      type: 'usage',
      usage: { tokensIn: Math.max(0, input - cached), tokensOut: count(u.output_tokens), cacheRead: cached, cacheWrite: count(u.cache_write_input_tokens) },
      model,
      cumulative: false,
    },
    // The run's budget does not stop it for these figures: the turn is over.
    { type: 'result', isError: false, text: null },
  ];
}

function mcpName(item: CodexItem): string {
  return `${item.server ?? 'mcp'}.${item.tool ?? '?'}`;
}

/** The `model = "..."` line of $CODEX_HOME/config.toml (the model codex uses when none is given), or null. */
export function codexConfiguredModel(env: Readonly<Record<string, string | undefined>>): string | null {
  const home = env.CODEX_HOME ?? join(env.HOME ?? homedir(), '.codex');
  try {
    const text = readFileSync(join(home, 'config.toml'), 'utf8');
    for (const line of text.split('\n')) {
      if (line.trim().startsWith('[')) break; // only the top-level table
      const m = /^\s*model\s*=\s*"([^"]+)"/.exec(line);
      if (m?.[1]) return m[1];
    }
  } catch {
    // no config: model unknown
  }
  return null;
}

/** Builds the Codex adapter. Codex never prints its model: the parser takes it from the options or config. */
export function createCodexAdapter(deps: AdapterDeps = defaultDeps()): AgentAdapter {
  return {
    name: 'codex',
    displayName: 'Codex',
    format: 'jsonl',
    supportsResume: true,
    buildInvocation(options: InvocationOptions): Invocation {
      const args = ['exec'];
      if (options.resumeSessionId !== null) args.push('resume');
      args.push('--json', '--skip-git-repo-check');
      if (options.model !== null) args.push('--model', options.model);
      if (options.permissionMode === 'bypass') args.push('--dangerously-bypass-approvals-and-sandbox');
      else if (options.resumeSessionId === null) args.push('--sandbox', 'workspace-write');
      args.push(...options.extraArgs);
      // The prompt comes on stdin: `-` for resume (after the session id); exec reads stdin when no prompt is given.
      if (options.resumeSessionId !== null) args.push(options.resumeSessionId, '-');
      return { command: 'codex', args, env: { ...options.env }, stdin: options.prompt };
    },
    createParser: (options) => createCodexParser(options.model ?? codexConfiguredModel(options.env), deps),
    classifyExit(exitCode, outputTail) {
      const c = classifyOutputTail(exitCode, outputTail, deps.clock());
      if (c === null) return null;
      if (c.kind === 'missing_binary') return { kind: c.kind, message: missingBinaryMessage('codex') };
      if (c.kind === 'auth') return { kind: c.kind, message: `Codex is not authenticated: set OPENAI_API_KEY or run \`codex login\`. (${shortMessage(outputTail, 200)})` };
      return { kind: c.kind, message: shortMessage(outputTail, 300) };
    },
  };
}

/** The Codex adapter with the real clock. */
export const codexAdapter: AgentAdapter = createCodexAdapter();
