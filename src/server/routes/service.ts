// Routes about the server itself: health, the agents a run can use, the manager's numbers.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { agentNames, getAdapter } from '../../agents/registry.js';
import { errors, json, type ApiContext } from '../api-context.js';
import { agentListSchema, healthSchema, statsSchema } from '../schemas.js';

/** GET /api/health, /api/agents, /api/stats. */
export function serviceRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  app.openapi(createRoute({ method: 'get', path: '/api/health', summary: 'Liveness of the server', responses: { 200: json(healthSchema, 'the server is up'), ...errors } }), (c) =>
    c.json({ ok: true as const, version: ctx.deps.version, pid: process.pid, uptime_ms: Math.max(0, ctx.deps.now() - ctx.deps.startedAt), store: ctx.deps.storeKind }, 200),
  );

  app.openapi(createRoute({ method: 'get', path: '/api/agents', summary: 'The agent CLIs a run can use', responses: { 200: json(agentListSchema, 'the agents'), ...errors } }), (c) =>
    c.json({ agents: agentList() }, 200),
  );

  app.openapi(createRoute({ method: 'get', path: '/api/stats', summary: "The loop manager's numbers over the active runs", responses: { 200: json(statsSchema, 'the numbers'), ...errors } }), async (c) =>
    c.json(await ctx.deps.manager.stats(), 200),
  );
}

/** The agents known to this build. */
function agentList(): Array<{ name: string; display_name: string; format: 'text' | 'jsonl'; supports_resume: boolean }> {
  return agentNames().map((name) => {
    const adapter = getAdapter({ name, command: name === 'command' ? ['true'] : null });
    // The command agent runs whatever command a run gives it: its name in a list says so, not a placeholder's path.
    return { name, display_name: name === 'command' ? 'a command you give' : adapter.displayName, format: adapter.format, supports_resume: adapter.supportsResume };
  });
}
