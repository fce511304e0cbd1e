// The demo's scripted agent that speaks Claude Code's stream-json (`ringmaster serve --demo` puts a `claude`
// that runs it first on the server's PATH): a deterministic stand-in, no model, no API key. Like the scripted
// agent, each run checks off the first open task of TODO.md by writing a file for it and signals completion
// once every task is done; on the way it says what it does in markdown, calls tools (Read, Write, Bash with
// coloured test output) and reports tokens and a cost. `.demo.json` in the workspace can make it fail every
// time (`fail`), or hit a usage limit once at an iteration (`limit_at`, resetting after `limit_seconds`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface DemoOptions {
  cost?: number;
  fail?: boolean;
  limit_at?: number;
  limit_seconds?: number;
}

const delayMs = Number(process.env.RINGMASTER_SCRIPTED_DELAY_MS ?? '400');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readJson(path: string): DemoOptions {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DemoOptions;
  } catch {
    return {};
  }
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'task';
}

async function main(): Promise<number> {
  for await (const _ of process.stdin) void _;
  const cwd = process.cwd();
  const options = readJson(join(cwd, '.demo.json'));
  const n = (existsSync('.demo-count') ? Number(readFileSync('.demo-count', 'utf8')) : 0) + 1;
  writeFileSync('.demo-count', String(n));
  const session = `demo-${n}`;
  let toolId = 0;
  const print = (line: unknown) => new Promise<void>((r) => process.stdout.write(`${JSON.stringify(line)}\n`, () => r()));
  const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: Math.round(input / 2) });
  const say = (text: string) => print({ type: 'assistant', message: { id: `m${n}`, type: 'message', role: 'assistant', model: 'claude-demo', content: [{ type: 'text', text }], usage: usage(900, 120) }, session_id: session });
  const tool = async (name: string, input: Record<string, unknown>, output: string, isError = false) => {
    const id = `toolu_${n}_${++toolId}`;
    await print({ type: 'assistant', message: { id: `m${n}`, type: 'message', role: 'assistant', model: 'claude-demo', content: [{ type: 'tool_use', id, name, input }], usage: usage(900, 60) }, session_id: session });
    await sleep(delayMs / 4);
    await print({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: isError }] }, session_id: session });
  };
  const finish = (text: string, isError = false) =>
    print({ type: 'result', subtype: 'success', is_error: isError, session_id: session, total_cost_usd: isError ? 0 : (options.cost ?? 0.04), usage: usage(3600, 480), result: text });

  await print({ type: 'system', subtype: 'init', session_id: session, model: 'claude-demo', cwd });
  if (options.limit_at === n && !existsSync('.demo-limit-done')) {
    writeFileSync('.demo-limit-done', '');
    const resetsAt = Math.ceil(Date.now() / 1000) + (options.limit_seconds ?? 45);
    await print({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' } });
    await finish("You've hit your limit", true);
    return 1;
  }
  const todo = join(cwd, 'TODO.md');
  const lines = existsSync(todo) ? readFileSync(todo, 'utf8').split('\n') : [];
  await tool('Read', { file_path: todo }, lines.join('\n'));
  const index = lines.findIndex((l) => /^\s*- \[ \] /.test(l));
  if (index < 0) {
    await say('Every task in `TODO.md` is checked off and the tests pass.\n\n<promise>COMPLETE</promise>');
    await finish('done');
    return 0;
  }
  const task = (lines[index] ?? '').replace(/^\s*- \[ \] /, '').trim();
  await say(`## Next task\n\n**${task}**. I will write it, then run the tests.`);
  await sleep(delayMs / 2);
  if (options.fail) {
    await tool('Bash', { command: 'npm test' }, `\u001b[31m✗ ${task}: expected 3 rows, got 2\u001b[0m\n\u001b[31m1 failed\u001b[0m, \u001b[32m12 passed\u001b[0m`, true);
    await say('The test still fails and I do not know why. <promise>FAILURE</promise>');
    await finish('blocked');
    return 1;
  }
  const number = lines.slice(0, index).filter((l) => /^\s*- \[x\] /i.test(l)).length + 1;
  const file = join('work', `${String(number).padStart(2, '0')}-${slug(task)}.md`);
  mkdirSync(join(cwd, 'work'), { recursive: true });
  writeFileSync(join(cwd, file), `# ${task}\n\nDone by the demo agent in iteration ${n}.\n`);
  await tool('Write', { file_path: file, content: `# ${task}` }, `File created successfully at: ${file}`);
  lines[index] = (lines[index] ?? '').replace('- [ ] ', '- [x] ');
  writeFileSync(todo, lines.join('\n'));
  await sleep(delayMs / 2);
  await tool('Bash', { command: 'npm test' }, `\u001b[32m✓ ${number * 4} passed\u001b[0m (${(0.8 + number / 10).toFixed(1)}s)`);
  const left = lines.filter((l) => /^\s*- \[ \] /.test(l)).length;
  await say(`Checked off *${task}*; ${left === 0 ? 'nothing is left' : `${left} task${left === 1 ? '' : 's'} left`}.`);
  await finish(`checked off ${task}`);
  return 0;
}

process.exitCode = await main();
