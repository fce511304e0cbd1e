// A fake `claude` CLI: prints Claude Code's stream-json for one iteration, driven by files in the workspace.
// .claude-plan: a comma list, one step per iteration (the count lives in .claude-count):
//   work      markdown text, a Bash tool call whose result is red (an error), more text; costs $0.50
//   gate      the same, but waits after the tool call until .gate-<iteration> exists
//   complete  like work, then <promise>COMPLETE</promise>
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const plan = existsSync('.claude-plan') ? readFileSync('.claude-plan', 'utf8').trim().split(',') : ['work'];
const n = (existsSync('.claude-count') ? Number(readFileSync('.claude-count', 'utf8')) : 0) + 1;
writeFileSync('.claude-count', String(n));
const step = plan[Math.min(n - 1, plan.length - 1)];

for await (const _ of process.stdin);
const session = `sess-${n}`;
const print = (line) => new Promise((r) => process.stdout.write(`${JSON.stringify(line)}\n`, r));
const assistant = (content, id) => print({ type: 'assistant', message: { id, type: 'message', role: 'assistant', model: 'claude-fake-1', content, usage: { input_tokens: 1000, output_tokens: 200, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }, session_id: session });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await print({ type: 'system', subtype: 'init', session_id: session, model: 'claude-fake-1' });
await assistant([{ type: 'text', text: `## Plan ${n}\n\nI will **fix** the failing test in \`src/a.ts\`.` }], `m${n}a`);
await assistant([{ type: 'tool_use', id: `t${n}`, name: 'Bash', input: { command: 'npm test' } }], `m${n}a`);
if (step === 'gate') while (!existsSync(`.gate-${n}`)) await sleep(20);
await print({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: '\u001b[31m1 failed\u001b[0m, 41 passed', is_error: true }] }, session_id: session });
await assistant([{ type: 'text', text: step === 'complete' ? `Fixed it in iteration ${n}. <promise>COMPLETE</promise>` : `Fixed it in iteration ${n}.` }], `m${n}b`);
await print({ type: 'result', subtype: 'success', is_error: false, session_id: session, total_cost_usd: 0.5, usage: { input_tokens: 1000, output_tokens: 200, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, result: 'done' });
