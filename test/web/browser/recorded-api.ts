// API payloads for the dashboard's in-browser component tests: runs, a run's detail and its output, each
// validated by the schemas the dashboard parses them with. (End-to-end tests use `ringmaster serve`.)
import { activityListSchema, runDetailSchema, runListSchema, statsSchema, type AgentActivity, type RunSummary } from '../../../web/src/api/api-types.js';
import { sendJson, type ApiHandler } from './harness.js';

const STATUSES = ['running', 'pending', 'paused', 'waiting', 'completed', 'stopped', 'failed'] as const;
const T0 = Date.parse('2026-03-01T09:00:00.000Z');

/** `count` runs spread over the statuses (in STATUSES order, round robin), in 3 workspaces and 2 agents. */
export function recordedRuns(count: number, now: number): RunSummary[] {
  return runListSchema.parse({
    runs: Array.from({ length: count }, (_, i) => {
      const status = STATUSES[i % STATUSES.length] ?? 'running';
      const ended = ['completed', 'stopped', 'failed'].includes(status);
      return {
        id: `run${String(i).padStart(4, '0')}`,
        status,
        stop_reason: status === 'completed' ? 'success_signal' : status === 'stopped' ? 'user_stop' : status === 'failed' ? 'failure_threshold' : null,
        agent: i % 2 === 0 ? 'claude' : 'codex',
        model: i % 2 === 0 ? 'sonnet' : 'gpt-5',
        label: i % 3 === 0 ? 'PROMPT.md' : `Task ${i}: make the tests pass`,
        workspace: `/work/project-${i % 3}`,
        iterations: (i % 9) + 1,
        cost_usd: ((i % 9) + 1) * 0.37,
        tokens_in: 1000 * i,
        tokens_out: 100 * i,
        runtime_ms: 60_000 * ((i % 9) + 1),
        max_iterations: 20,
        max_cost_usd: i % 4 === 0 ? null : 10,
        waiting_until: status === 'waiting' ? now + 3_600_000 : null,
        last_seq: 10,
        created_at: new Date(T0 + i * 1000).toISOString(),
        updated_at: new Date(T0 + i * 1000).toISOString(),
        ended_at: ended ? new Date(T0 + i * 2000).toISOString() : null,
      };
    }),
  }).runs;
}

/** The detail of a running run with `iterations` finished iterations at $0.50 each and a budget of $10. */
export function recordedDetail(run: RunSummary, iterations: number) {
  return runDetailSchema.parse({
    run: { ...run, status: 'running', iterations: iterations + 1, cost_usd: iterations * 0.5, max_cost_usd: 10, max_iterations: 40 },
    iterations: Array.from({ length: iterations + 1 }, (_, i) => ({
      number: i + 1,
      status: i === iterations ? 'running' : 'success',
      exit_code: i === iterations ? null : 0,
      exit_signal: null,
      duration_ms: i === iterations ? null : 30_000,
      tokens_in: 1000,
      tokens_out: 200,
      cost_usd: i === iterations ? null : 0.5,
      completion_signal_found: false,
      error_kind: i === iterations ? null : 'none',
      error_message: null,
      model: 'sonnet',
      agent: 'claude',
      started_at: new Date(T0 + i * 30_000).toISOString(),
      completed_at: i === iterations ? null : new Date(T0 + (i + 1) * 30_000).toISOString(),
    })),
    checkpoints: [{ iteration: 5, commit_sha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', state: 'committed', message: null, created_at: new Date(T0).toISOString() }],
  });
}

/** Output of one iteration: markdown, a tool call with its result, then `lines` raw lines (some coloured). */
export function recordedActivity(iteration: number, lines: number): AgentActivity[] {
  const activity: AgentActivity[] = [
    { kind: 'text', iteration, time: T0, text: '## Plan\n\nI will **fix** the failing test in `src/a.ts`.' },
    { kind: 'tool_call', iteration, time: T0 + 1000, name: 'Bash', input: '{"command":"npm test"}' },
    { kind: 'tool_result', iteration, time: T0 + 3500, name: 'Bash', output: '\u001b[31m1 failed\u001b[0m, 41 passed', is_error: true },
  ];
  const chunk: string[] = [];
  for (let i = 1; i <= lines; i++) {
    chunk.push(i % 10 === 0 ? `\u001b[32mline ${i} ok\u001b[0m` : `line ${i}`);
    if (chunk.length === 1000 || i === lines) {
      activity.push({ kind: 'output', iteration, time: T0 + 4000 + i, stream: 'stdout', text: `${chunk.join('\n')}\n` });
      chunk.length = 0;
    }
  }
  return activityListSchema.parse({ activity }).activity;
}

/** Serves the recorded runs, stats, one run's detail and the output of its iterations. */
export function recordedApi(runs: RunSummary[], options: { detailIterations?: number; outputLines?: number } = {}): ApiHandler {
  const details = new Map(runs.map((r) => [r.id, r]));
  return (_req, res, url) => {
    const path = url.pathname;
    if (path === '/api/runs') return sendJson(res, { runs, next_cursor: null });
    if (path === '/api/stats') {
      const active = runs.filter((r) => ['running', 'paused', 'waiting', 'pending'].includes(r.status));
      return sendJson(
        res,
        statsSchema.parse({
          total_active: active.length,
          running: runs.filter((r) => r.status === 'running').length,
          paused: runs.filter((r) => r.status === 'paused').length,
          pending: runs.filter((r) => r.status === 'pending').length,
          waiting: runs.filter((r) => r.status === 'waiting').length,
          total_cost_usd: 12.5,
          total_iterations: 100,
          total_tokens: 12345,
          max_concurrent: 5,
          today_cost_usd: 4.25,
        }),
      );
    }
    const detail = /^\/api\/runs\/([^/]+)$/.exec(path);
    const run = detail ? details.get(decodeURIComponent(detail[1] ?? '')) : undefined;
    if (run) return sendJson(res, recordedDetail(run, options.detailIterations ?? 8));
    const activity = /^\/api\/runs\/([^/]+)\/activity$/.exec(path);
    if (activity) return sendJson(res, { activity: recordedActivity(Number(url.searchParams.get('iteration')), options.outputLines ?? 200), truncated: false });
    return false;
  };
}
