// The scripted demo agent's prd.json mode (the `ralph` workflow): each run implements the highest-priority
// user story that does not pass yet by writing a file for it, marks it `passes: true`, appends a line to
// progress.txt, commits `feat: [ID] - Title`, and prints <promise>COMPLETE</promise> once every story passes.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Story {
  id: string;
  title: string;
  priority?: number;
  passes: boolean;
}

function stories(prd: unknown): Story[] {
  const list = (prd as { userStories?: unknown }).userStories;
  if (!Array.isArray(list)) return [];
  return list.filter((s): s is Story => typeof s === 'object' && s !== null && typeof (s as Story).id === 'string' && typeof (s as Story).passes === 'boolean');
}

function commit(cwd: string, message: string): boolean {
  try {
    execFileSync('git', ['add', '-A'], { cwd, stdio: 'ignore' });
    execFileSync('git', ['-c', 'user.name=Ringmaster Scripted Agent', '-c', 'user.email=scripted@ringmaster.invalid', 'commit', '-q', '-m', message], { cwd, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Does one story of `<cwd>/prd.json`; returns the process exit code. */
export function prdIteration(cwd: string, write: (text: string) => void): number {
  const path = join(cwd, 'prd.json');
  let prd: { userStories: unknown[] };
  try {
    prd = JSON.parse(readFileSync(path, 'utf8')) as { userStories: unknown[] };
  } catch (error) {
    write(`  ... cannot read prd.json: ${(error as Error).message}\n<promise>FAILURE</promise>\n`);
    return 1;
  }
  const open = stories(prd)
    .filter((s) => !s.passes)
    .sort((a, b) => (a.priority ?? Number.MAX_SAFE_INTEGER) - (b.priority ?? Number.MAX_SAFE_INTEGER));
  const story = open[0];
  if (!story) {
    write('  ... every story in prd.json passes\n<promise>COMPLETE</promise>\n');
    return 0;
  }
  mkdirSync(join(cwd, 'work'), { recursive: true });
  const file = join('work', `${story.id}.md`);
  writeFileSync(join(cwd, file), `# ${story.id}: ${story.title}\n\nImplemented by the scripted demo agent.\n`);
  story.passes = true;
  writeFileSync(path, `${JSON.stringify(prd, null, 2)}\n`);
  appendFileSync(join(cwd, 'progress.txt'), `${story.id}: ${story.title} (passes)\n`);
  const committed = existsSync(join(cwd, '.git')) && commit(cwd, `feat: [${story.id}] - ${story.title}`);
  write(`  ... implemented ${story.id} "${story.title}" in ${file}${committed ? ', committed' : ''}\n`);
  const left = open.length - 1;
  if (left === 0) {
    write('  ✓ every story in prd.json passes\n<promise>COMPLETE</promise>\n');
  } else {
    write(`  ... ${left} ${left === 1 ? 'story' : 'stories'} left\n`);
  }
  return 0;
}
