// The built-in scripted demo agent: a deterministic stand-in for an AI CLI. Each run reads the prompt on
// stdin, checks off the first open task of TODO.md by writing a file for it, and signals completion once
// every task is done. State lives in the workspace's files, exactly like a real Ralph loop. A prompt about
// prd.json (the `ralph` workflow) in a workspace that has one works through its user stories instead; a task
// loop's prompt ("# Task ID: title") is answered by doing that one task (tasks.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prdIteration } from './prd.js';
import { taskIteration, taskOfPrompt } from './tasks.js';

const delayMs = Number(process.env.RINGMASTER_SCRIPTED_DELAY_MS ?? '400');

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => resolve(''));
  });
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'task';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const prompt = await readStdin();
  const cwd = process.cwd();
  process.stdout.write(`  ... read prompt (${prompt.length} characters)\n`);
  if (taskOfPrompt(prompt) !== null) {
    await sleep(delayMs);
    return taskIteration(cwd, prompt, (text) => process.stdout.write(text));
  }
  if (prompt.includes('prd.json') && existsSync(join(cwd, 'prd.json'))) {
    await sleep(delayMs);
    return prdIteration(cwd, (text) => process.stdout.write(text));
  }
  const todoPath = join(cwd, 'TODO.md');
  if (!existsSync(todoPath)) {
    process.stdout.write('  ... no TODO.md here: nothing I can do\n<promise>FAILURE</promise>\n');
    return 1;
  }
  const lines = readFileSync(todoPath, 'utf8').split('\n');
  const index = lines.findIndex((l) => /^\s*- \[ \] /.test(l));
  await sleep(delayMs / 2);
  if (index < 0) {
    process.stdout.write('  ... every task in TODO.md is checked off\n  ✓ All tasks done\n<promise>COMPLETE</promise>\n');
    return 0;
  }
  const task = (lines[index] ?? '').replace(/^\s*- \[ \] /, '').trim();
  const number = lines.slice(0, index).filter((l) => /^\s*- \[x\] /i.test(l)).length + 1;
  const file = join('work', `${String(number).padStart(2, '0')}-${slug(task)}.md`);
  mkdirSync(join(cwd, 'work'), { recursive: true });
  writeFileSync(join(cwd, file), `# ${task}\n\nDone by the scripted demo agent.\n`);
  process.stdout.write(`  ... created ${file}\n`);
  lines[index] = (lines[index] ?? '').replace('- [ ] ', '- [x] ');
  writeFileSync(todoPath, lines.join('\n'));
  await sleep(delayMs / 2);
  const remaining = lines.filter((l) => /^\s*- \[ \] /.test(l)).length;
  process.stdout.write(`  ... checked off "${task}" (${remaining} left)\n`);
  return 0;
}

process.exitCode = await main();
