// Errors of the environment are one line saying what is wrong and what to do, with a documented exit code and no
// stack trace: a damaged, truncated or misplaced database, a read-only one (history still readable), --worktree
// outside git, an old Node, a prompt too large for the command line, doctor agreeing with run.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../../src/store/paths.js';
import { BIN, cleanEnv, runCli, useWorkspace } from '../helpers/cli.js';
import { testHome, useFreshHome } from '../helpers/home.js';

const ws = useWorkspace('Do the work. When done, print <promise>COMPLETE</promise>.\n');
const db = () => databasePath(testHome());

function expectOneLine(r: { stderr: string; code: number | null }, code: number, pattern: RegExp): void {
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).not.toContain('internal error');
  expect(r.code).toBe(code);
}

async function oneRun(): Promise<void> {
  const r = await runCli(['run', '--agent-command', 'true', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() });
  expect(r.code).toBe(2);
}

describe('the database', () => {
  // Each test damages its data directory: its own.
  useFreshHome();

  it.each([
    ['truncated', (path: string) => writeFileSync(path, readFileSync(path).subarray(0, 5000)), /is damaged \(database disk image is malformed\): move it aside/],
    ['overwritten with garbage', (path: string) => writeFileSync(path, Buffer.alloc(8192, 0x5a)), /is damaged \(file is not a database\): move it aside/],
  ])('%s: runs and run say so in one line, exit 74', async (_name, damage, message) => {
    await oneRun();
    for (const suffix of ['-wal', '-shm']) rmSync(`${db()}${suffix}`, { force: true });
    damage(db());
    expectOneLine(await runCli(['runs'], { cwd: ws.dir, env: cleanEnv() }), 74, message);
    expectOneLine(await runCli(['run', '--agent-command', 'true', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() }), 74, message);
  });

  it('a data directory that cannot be made (a file in its place, a HOME that does not exist): one line, exit 74; demo leaves no workspace', async () => {
    const file = join(ws.dir, 'not-a-dir');
    writeFileSync(file, '');
    expectOneLine(
      await runCli(['run', '--agent-command', 'true', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv({ RINGMASTER_HOME: file }) }),
      74,
      new RegExp(`^ringmaster run: cannot create the directory ${file}: a file of that name is in the way \\(EEXIST\\)\\. Check HOME, RINGMASTER_HOME and the path\n$`),
    );
    const parent = join(ws.dir, 'demos');
    mkdirSync(parent);
    const env = cleanEnv({ HOME: join(file, 'home') });
    delete env.RINGMASTER_HOME;
    delete env.XDG_DATA_HOME;
    expectOneLine(await runCli(['demo', '--dir', parent, '--json'], { cwd: ws.dir, env }), 74, /^ringmaster demo: cannot create the directory .*not-a-dir\/home\/\.local\/share\/ringmaster: a file is in the way above it \(ENOTDIR\)\. /);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a directory where the database should be: one line, exit 74', async () => {
    mkdirSync(db(), { recursive: true });
    const message = /ringmaster\.db is a directory, not a database file: move it away/;
    expectOneLine(await runCli(['runs'], { cwd: ws.dir, env: cleanEnv() }), 74, message);
    expectOneLine(await runCli(['run', '--agent-command', 'true', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() }), 74, message);
  });

  it.each([
    ['the whole data directory', true, /^ringmaster run: cannot create the workspace lock .*\.lock \(permission denied\): 'ringmaster run' needs to write in the data directory; read-only commands \(runs, show, logs, stats\) work without it\n$/],
    ['the database only', false, /^ringmaster run: .*ringmaster\.db is read-only \(attempt to write a readonly database\): 'ringmaster run', 'resume' and 'stop' need to write it; make it and its directory writable \(read-only commands such as runs, show, logs and stats work as it is\)\n$/],
  ])('read-only (%s): runs, show, logs and stats still work; run says why it cannot, exit 74', async (_name, directoryToo, message) => {
    await oneRun();
    const asRoot = process.getuid?.() === 0;
    const env = cleanEnv();
    const dir = testHome();
    const locks = join(dir, 'locks');
    // Root ignores permission bits: then the commands run as nobody, for whom root's files are read-only (and
    // nobody stands for the owner: it may read what the owner reads, logs are 0600).
    let unreach = (): void => undefined;
    if (asRoot) {
      unreach = letOthersReach([BIN, process.execPath]);
      chmodSync(ws.dir, 0o755);
      chmodSync(db(), 0o644);
      execFileSync('chmod', ['-R', 'o+rX', join(dir, 'runs')]);
      chmodSync(dir, directoryToo ? 0o755 : 0o777);
      chmodSync(locks, directoryToo ? 0o755 : 0o777);
    } else {
      chmodSync(db(), 0o444);
      if (directoryToo) {
        chmodSync(dir, 0o555);
        chmodSync(locks, 0o555);
      }
    }
    const cli = (args: string[]) => {
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ws.dir, env, encoding: 'utf8', ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    try {
      const runs = cli(['runs', '--json']);
      expect(runs.stderr).toBe('');
      const list = JSON.parse(runs.stdout) as Array<{ id: string; status: string }>;
      expect(list).toHaveLength(1);
      const id = list[0]?.id ?? '';
      for (const args of [['show', id], ['logs', id], ['stats']]) expect(cli(args).code, args.join(' ')).toBe(0);
      expectOneLine(cli(['run', '--agent-command', 'true', '--max-iterations', '1']), 74, message);
    } finally {
      unreach();
      chmodSync(dir, 0o700);
      chmodSync(locks, 0o700);
      chmodSync(db(), 0o600);
    }
  });
});

/**
 * Lets other users (nobody) reach `paths`: search permission (o+x) on each directory above them that lacks it, as
 * when the checkout sits in a 0700 `mktemp -d` directory. Returns the undo.
 */
function letOthersReach(paths: string[]): () => void {
  const changed = new Map<string, number>();
  for (const path of paths) {
    for (let d = dirname(path); !changed.has(d); d = dirname(d)) {
      const mode = statSync(d).mode & 0o7777;
      if ((mode & 0o001) === 0) {
        changed.set(d, mode);
        chmodSync(d, mode | 0o001);
      }
      if (d === dirname(d)) break;
    }
  }
  return () => {
    for (const [d, mode] of changed) chmodSync(d, mode);
  };
}

describe('--worktree outside a git repository', () => {
  it('says a repository is needed, exit 64', async () => {
    expectOneLine(
      await runCli(['run', '--worktree', '--agent-command', 'true'], { cwd: ws.dir, env: cleanEnv({ GIT_CEILING_DIRECTORIES: join(ws.dir, '..') }) }),
      64,
      /--worktree needs a git repository, and .* is not in one: run 'git init' and commit once, or run without --worktree/,
    );
  });
});

describe('a negative number given to a flag', () => {
  it('is one line saying how to pass it, and passed that way it is judged like any value, exit 64', async () => {
    for (const flag of ['--max-iterations', '--max-cost', '--checkpoint-interval']) {
      expectOneLine(await runCli(['run', flag, '-1'], { cwd: ws.dir }), 64, new RegExp(`^ringmaster run: ${flag} needs a value; one that starts with '-' is written ${flag}=VALUE \\(see 'ringmaster run --help'\\)\n$`));
    }
    expectOneLine(await runCli(['run', '--max-iterations=-1'], { cwd: ws.dir }), 64, /--max-iterations.*expected a whole number of at least 1, got "-1"/);
  });
});

describe('Node older than 24', () => {
  it('bin/ringmaster.js without a bundled Node 24 says which Node is needed and how to get it, exit 64', () => {
    // The launcher alone in a directory of its own: no node-<os>-<arch> package to find (an installation whose
    // optional dependencies were left out). Run by the host's own Node when it is older, else by this one
    // pretending to be Node 20 (checked before anything loads).
    const launcher = join(ws.dir, 'alone', 'bin', 'ringmaster.js');
    mkdirSync(dirname(launcher), { recursive: true });
    writeFileSync(launcher, readFileSync(BIN));
    const host = spawnSync('/usr/bin/env', ['-i', 'PATH=/usr/local/bin:/usr/bin:/bin', 'node', '--version'], { encoding: 'utf8' });
    const old = host.status === 0 && Number(host.stdout.trim().replace(/^v/, '').split('.')[0]) < 24;
    const pretend = "Object.defineProperty(process.versions, 'node', { value: '20.11.1' })";
    const r = old
      ? spawnSync('/usr/bin/env', ['-i', 'PATH=/usr/local/bin:/usr/bin:/bin', 'node', launcher, 'runs'], { cwd: ws.dir, encoding: 'utf8' })
      : spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(pretend)}`, launcher, 'runs'], { cwd: ws.dir, encoding: 'utf8' });
    expect(r.stderr).toMatch(/^ringmaster: Node\.js 24 or newer is needed, and this is Node\.js \d+\.\d+\.\d+ \(.+\), and no Node\.js 24 came with this installation \(npm installs one on Linux and macOS, x64 and arm64, unless told to leave optional dependencies out\)\. Install Node 24 \(https:\/\/nodejs\.org, or 'nvm install 24'\), or reinstall Ringmaster without omitting it\.\n$/);
    expect(r.status).toBe(64);
  });
});

describe('a prompt larger than the command line allows, for an agent that takes it as an argument', () => {
  it('cursor gets it in a file and a short argument saying where', async () => {
    const bin = join(ws.dir, 'fake-bin');
    mkdirSync(bin);
    // A fake cursor-agent: reports the size of its last argument, and the file it names.
    writeFileSync(
      join(bin, 'cursor-agent'),
      `#!/bin/sh
for last; do :; done
printf '%s' "$last" > last-arg.txt
echo '{"type":"system","subtype":"init","session_id":"c1","model":"m"}'
echo '{"type":"result","subtype":"success","is_error":false,"session_id":"c1","result":"read it"}'
`,
    );
    chmodSync(join(bin, 'cursor-agent'), 0o755);
    const prompt = `${'Lots of context. '.repeat(20_000)}\nWhen done, print <promise>COMPLETE</promise>.\n`;
    writeFileSync(join(ws.dir, 'PROMPT.md'), prompt);
    const r = await runCli(['run', '--agent', 'cursor', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` }) });
    expect(r.stderr).not.toContain('E2BIG');
    expect(r.code).toBe(2);
    const arg = readFileSync(join(ws.dir, 'last-arg.txt'), 'utf8');
    const file = /^Your instructions are in the file (\S+) \(too long to pass on the command line\)\./.exec(arg)?.[1] ?? '';
    expect(readFileSync(file, 'utf8')).toBe(prompt);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('doctor and run agree on where agent CLIs are', () => {
  it('a CLI only in Ringmaster\'s own node_modules/.bin is reported as not found (with a note), as run does not find it', async () => {
    const path = '/usr/bin:/bin';
    const doctor = await runCli(['doctor', 'codex', '--json'], { cwd: ws.dir, env: cleanEnv({ PATH: path }) });
    const [report] = JSON.parse(doctor.stdout) as Array<{ found: boolean; notes: string[] }>;
    expect(report?.found).toBe(false);
    expect(report?.notes.join(' ')).toMatch(/not on PATH, so 'ringmaster run' will not find it; a copy is in .*node_modules\/\.bin\/codex/);
    const run = await runCli(['run', '--agent', 'codex', '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv({ PATH: path }) });
    expect(run.stdout).toMatch(/codex not found/i);
    expect(run.code).toBe(1);
  });
});
