// Search over a run's stored output (GET /api/runs/:id/search): each iteration's log read back as activity, page
// after page, and the pieces that contain the text counted the way the dashboard's output view counts its rows (a
// line of raw output, a block of assistant text, a tool call with its result). The dashboard asks it for the
// iterations it has not loaded, so a search finds matches in every iteration of the run.
import type { AgentActivity } from '../runner/events.js';
import { readLogActivity, type LogActivityRequest } from './log-activity.js';

/** Pages of one iteration's log searched at most (a page is at most 1 MiB: the dashboard loads as many). */
export const MAX_SEARCH_PAGES = 32;

/** How many rows of one piece of activity contain `needle` (already lowercased). */
export function matchesIn(activity: AgentActivity, needle: string): number {
  const has = (text: string) => text.toLowerCase().includes(needle);
  switch (activity.kind) {
    case 'output':
      return activity.text.split('\n').filter(has).length;
    case 'text':
      return has(activity.text) ? 1 : 0;
    case 'tool_call':
      return has(`${activity.name} ${activity.input}`) ? 1 : 0;
    case 'tool_result':
      return has(activity.output) ? 1 : 0;
  }
}

/** Rows of one iteration's stored output that contain `query` (ignoring case); `truncated` when the log was longer than searched. */
export async function searchLog(request: Omit<LogActivityRequest, 'offset' | 'index'>, query: string): Promise<{ matches: number; truncated: boolean }> {
  const needle = query.trim().toLowerCase();
  if (needle === '') return { matches: 0, truncated: false };
  let matches = 0;
  let offset = 0;
  let index = 0;
  for (let page = 0; page < MAX_SEARCH_PAGES; page++) {
    const read = await readLogActivity({ ...request, offset, index });
    for (const activity of read.activity) matches += matchesIn(activity, needle);
    if (!read.truncated) return { matches, truncated: false };
    ({ nextOffset: offset, nextIndex: index } = read);
  }
  return { matches, truncated: true };
}
