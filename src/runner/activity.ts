// Agent activity (what the agent is doing, for live views) from its parsed stream events: the same mapping
// live and when an iteration's log is read back, so both number the activity the same way.
import type { AgentEvent } from '../agents/types.js';
import type { AgentActivityBody } from './events.js';

/** Bounds of live activity: a tool's input and output, and one chunk of text. */
export const TOOL_TEXT_MAX = 4000;
export const ACTIVITY_TEXT_MAX = 64 * 1024;

/** Cuts text at `max` characters, marking the cut. */
export function bounded(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The structured activity an agent event shows (text, tool call, tool result), numbered `index`; null for the rest. */
export function activityOf(event: AgentEvent, index: number): AgentActivityBody | null {
  switch (event.type) {
    case 'text':
      return { kind: 'text', index, text: bounded(event.text, ACTIVITY_TEXT_MAX) };
    case 'tool_call':
      return { kind: 'tool_call', index, name: event.name, input: bounded(JSON.stringify(event.input) ?? '', TOOL_TEXT_MAX) };
    case 'tool_result':
      return { kind: 'tool_result', index, name: event.name, output: bounded(event.output, TOOL_TEXT_MAX), is_error: event.isError };
    default:
      return null;
  }
}
