// Agent name -> adapter. One line per agent CLI; `command` and `scripted` need no external binary.
import { fileURLToPath } from 'node:url';
import { UsageError } from '../core/errors.js';
import { ampAdapter } from './amp.js';
import { claudeAdapter } from './claude.js';
import { createCodexAdapter } from './codex.js';
import { commandAdapter } from './command.js';
import { createCopilotAdapter } from './copilot.js';
import { createGeminiAdapter } from './gemini.js';
import { createOpencodeAdapter } from './opencode.js';
import { cursorAdapter } from './cursor.js';
import type { AgentAdapter } from './types.js';

/** What the registry needs to build an adapter (from the resolved config). */
export interface AgentSpec {
  name: string;
  /** argv of the `command` agent. */
  command: readonly string[] | null;
}

type Factory = (spec: AgentSpec) => AgentAdapter;

const FACTORIES: Record<string, Factory> = {
  claude: () => claudeAdapter,
  codex: () => createCodexAdapter(),
  amp: () => ampAdapter,
  cursor: () => cursorAdapter,
  command: (spec) => {
    if (!spec.command || spec.command.length === 0) {
      throw new UsageError("agent 'command' needs --agent-command \"path args...\" or agent.command (an argv list) in config");
    }
    return commandAdapter(spec.command);
  },
  gemini: () => createGeminiAdapter(),
  opencode: () => createOpencodeAdapter(),
  copilot: () => createCopilotAdapter(),
  scripted: () =>
    commandAdapter([process.execPath, fileURLToPath(new URL('./scripted/agent.js', import.meta.url))], 'scripted', 'a scripted stand-in, no model'),
};

/** Names of every known agent, for help text and validation. */
export function agentNames(): string[] {
  return Object.keys(FACTORIES).sort();
}

const BUILT_IN = new Set(Object.keys(FACTORIES));

/** True for the agents shipped with Ringmaster (every thread has them; agents a library registers live in its thread). */
export function isBuiltInAgent(name: string): boolean {
  return BUILT_IN.has(name) && FACTORIES[name] !== undefined;
}

/** Registers an adapter factory under a name (used by the agent modules and by library users). */
export function registerAgent(name: string, factory: Factory): void {
  FACTORIES[name] = factory;
}

/** Returns the adapter for an agent spec, or a UsageError naming the known agents. */
export function getAdapter(spec: AgentSpec): AgentAdapter {
  const factory = FACTORIES[spec.name];
  if (!factory) throw new UsageError(`unknown agent '${spec.name}' (known: ${agentNames().join(', ')})`);
  return factory(spec);
}
