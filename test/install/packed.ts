// The packed-and-installed package, as a user gets it: `npm pack` of this clone installed globally into temp
// prefixes by the host's own Node and npm (Node 20 on these machines) and by npm run on the pinned Node 24, from
// npm's cache (--prefer-offline). Finds the host's Node outside node_modules, runs the installed `ringmaster`
// with a PATH that holds only the chosen Node, the prefix's bin and the system's directories.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ROOT, cleanEnv, type CliResult } from '../helpers/cli.js';

/** The package's version (what `ringmaster --version` prints). */
export const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The host's own `name` (node, npm): the first on PATH outside any node_modules, or null. */
export function hostBinary(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || dir.split('/').includes('node_modules')) continue;
    if (executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** The major version of a Node binary. */
export function nodeMajor(node: string): number {
  return Number(execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]);
}

/** npm's environment: none of the npm_* settings of the `npm test` that runs the suite, the cache kept. */
function npmEnv(node: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k) && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, PATH: [dirname(node), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter), CI: 'true', ...extra };
}

/** Runs npm (its own script `npmCli`) on `node`; resolves with its output, rejects with it on failure. */
export function npm(node: string, npmCli: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [npmCli, ...args], { cwd: options.cwd, env: npmEnv(node, options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`npm ${args.join(' ')} exited with ${code}:\n${out}`))));
  });
}

/** The host's npm as its own script (bin/npm-cli.js), so that any Node can run it. */
export function npmCliOf(npmBin: string): string {
  return realpathSync(npmBin);
}

/** Packs the clone (already built by the suite's `npm run build`, so prepack is not run again); the tarball. */
export async function pack(node: string, npmCli: string, into: string): Promise<string> {
  const out = await npm(node, npmCli, ['pack', '--ignore-scripts', '--pack-destination', into, '--loglevel=error'], { cwd: ROOT });
  const name = out.trim().split('\n').pop() ?? '';
  return join(into, name);
}

/** `npm install -g` of the tarball into `prefix`, from the cache when it can. */
export async function installGlobal(node: string, npmCli: string, tarball: string, prefix: string, extra: string[] = []): Promise<void> {
  await npm(node, npmCli, ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...extra, tarball], { cwd: dirname(tarball) });
}

/** An environment where `node` is `node` and `ringmaster` is the one in `prefix`, and nothing of this clone. */
export function userEnv(node: string, prefix: string, home: string): Record<string, string> {
  const env = cleanEnv({ RINGMASTER_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
  for (const k of Object.keys(env)) if (/^npm_/i.test(k) || k === 'NODE_OPTIONS') delete env[k];
  env.PATH = [join(prefix, 'bin'), dirname(node), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);
  return env;
}

/** A started `ringmaster` (the installed one, found on env's PATH by its shebang), in its own process group. */
export interface Started {
  child: ChildProcess;
  done: Promise<CliResult>;
  stdout(): string;
}

/** Starts `<prefix>/bin/ringmaster args` in `cwd`, in a process group of its own (as a shell's job is). */
export function startInstalled(prefix: string, args: string[], cwd: string, env: Record<string, string>): Started {
  const child = spawn(join(prefix, 'bin', 'ringmaster'), args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stdout: () => stdout };
}

/** The parent pid of a process, from /proc. */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The agent used by the tests: records `pid ppid parent's-executable` in argv[2], then completes, or hangs (argv[3] = hang). */
export const AGENT = `import { appendFileSync, readlinkSync } from 'node:fs';
appendFileSync(process.argv[2], \`\${process.pid} \${process.ppid} \${readlinkSync(\`/proc/\${process.ppid}/exe\`)}\\n\`);
process.stdin.resume();
await new Promise((r) => process.stdin.on('end', r));
if (process.argv[3] === 'hang') setInterval(() => {}, 1000);
else process.stdout.write('done <promise>COMPLETE</promise>\\n');
`;

/** What the agent recorded of each of its starts. */
export interface AgentStart {
  pid: number;
  parent: number;
  parentExe: string;
}

/** The agents started so far, from the agent's record file. */
export function agentStarts(file: string): AgentStart[] {
  try {
    return readFileSync(file, 'utf8').split('\n').flatMap((line) => {
      const m = /^(\d+) (\d+) (.+)$/.exec(line);
      return m ? [{ pid: Number(m[1]), parent: Number(m[2]), parentExe: m[3] ?? '' }] : [];
    });
  } catch {
    return [];
  }
}

/** A temp directory, and its removal. */
export function temp(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
