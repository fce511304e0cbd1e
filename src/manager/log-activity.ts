// An iteration's log read back as agent activity (GET /api/runs/:id/activity): structured agents' lines go through
// their adapter's parser and are numbered like the live activity was; plain-text output comes in chunks placed
// by their log offset. So a page that loads the past and then follows live activity shows everything once.
import { createReadStream } from 'node:fs';
import { getAdapter } from '../agents/registry.js';
import type { InvocationOptions } from '../agents/types.js';
import { activityOf } from '../runner/activity.js';
import type { AgentActivity } from '../runner/events.js';
import { createLineSplitter } from '../runner/line-splitter.js';

/** Where to read and how to parse it. */
export interface LogActivityRequest {
  agent: string;
  command: string[] | null;
  logPath: string;
  iteration: number;
  /** Time given to activity read back (the log keeps none): the iteration's start. */
  time: number;
  cwd: string;
  model: string | null;
  /** At most this many activities (the rest is reported as truncated). */
  limit: number;
}

const CHUNK = 64 * 1024;

/** The iteration's activity, oldest first; `truncated` when there was more than `limit`. */
export async function readLogActivity(request: LogActivityRequest): Promise<{ activity: AgentActivity[]; truncated: boolean }> {
  const adapter = getAdapter({ name: request.agent, command: request.command });
  const activity: AgentActivity[] = [];
  let truncated = false;
  const stream = createReadStream(request.logPath, { highWaterMark: CHUNK });
  const full = (): boolean => {
    if (activity.length < request.limit) return false;
    truncated = true;
    stream.destroy();
    return true;
  };
  try {
    if (adapter.format === 'text') {
      let offset = 0;
      const decoder = new TextDecoder();
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const text = decoder.decode(chunk, { stream: true });
        if (text !== '') activity.push({ kind: 'output', iteration: request.iteration, time: request.time, stream: 'stdout', offset, text });
        offset += chunk.length;
        if (full()) break;
      }
      return { activity, truncated };
    }
    const options: InvocationOptions = { prompt: '', cwd: request.cwd, model: request.model, extraArgs: [], permissionMode: 'bypass', resumeSessionId: null, env: {} };
    const parser = adapter.createParser(options);
    let index = 0;
    const take = (events: ReturnType<typeof parser.line>): void => {
      for (const event of events) {
        const body = activityOf(event, index);
        if (body === null) continue;
        index += 1;
        if (activity.length < request.limit) activity.push({ ...body, iteration: request.iteration, time: request.time });
        else truncated = true;
      }
    };
    const splitter = createLineSplitter((line) => take(parser.line(line)));
    const decoder = new TextDecoder();
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      splitter.push(decoder.decode(chunk, { stream: true }));
      if (truncated) break;
    }
    if (!truncated) {
      splitter.end();
      take(parser.end());
    }
    return { activity, truncated };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { activity, truncated };
    throw error;
  }
}
