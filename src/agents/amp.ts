// The Amp adapter: `amp --execute --stream-json`, prompt on stdin. Amp streams Claude Code's SDKMessage
// shapes (system/init, assistant with Anthropic usage, user tool results, result), so it reuses that parser.
// [DOCS] Not run against a fake here: Amp needs its own service (AMP_API_KEY) and cannot be pointed at one.
import { missingBinaryMessage } from './doctor.js';
import { defaultDeps, type AdapterDeps } from './adapter-deps.js';
import { createClaudeParser } from './claude.js';
import { classifyOutputTail, shortMessage } from './classify.js';
import type { AgentAdapter, Invocation, InvocationOptions } from './types.js';

/** Builds the Amp adapter. Amp chooses its own model; `model` maps to its `--mode` (smart, rush, ...). */
export function createAmpAdapter(deps: AdapterDeps = defaultDeps()): AgentAdapter {
  return {
    name: 'amp',
    displayName: 'Amp',
    format: 'jsonl',
    supportsResume: true,
    buildInvocation(options: InvocationOptions): Invocation {
      const args = options.resumeSessionId !== null ? ['threads', 'continue', options.resumeSessionId] : [];
      args.push('--execute', '--stream-json');
      if (options.model !== null) args.push('--mode', options.model);
      if (options.permissionMode === 'bypass') args.push('--dangerously-allow-all');
      args.push(...options.extraArgs);
      return { command: 'amp', args, env: { ...options.env }, stdin: options.prompt };
    },
    createParser: () => createClaudeParser(deps),
    classifyExit(exitCode, outputTail) {
      const c = classifyOutputTail(exitCode, outputTail, deps.clock());
      if (c === null) return null;
      if (c.kind === 'missing_binary') return { kind: c.kind, message: missingBinaryMessage('amp') };
      if (c.kind === 'auth') return { kind: c.kind, message: `Amp is not authenticated: set AMP_API_KEY (from ampcode.com/settings). (${shortMessage(outputTail, 200)})` };
      return { kind: c.kind, message: shortMessage(outputTail, 300) };
    },
  };
}

/** The Amp adapter with the real clock. */
export const ampAdapter: AgentAdapter = createAmpAdapter();
