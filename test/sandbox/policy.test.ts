// The sandbox's pure parts and its probe: which hosts an agent may reach, the base URLs it talks to, what
// `doctor` says on a machine without bubblewrap or on macOS, and the bubblewrap mounts of a worktree.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { renderSandbox } from '../../src/cli/commands/doctor.js';
import { resolveNewRun } from '../../src/manager/new-run.js';
import { runRequestSchema } from '../../src/manager/run-request.js';
import { bwrapArgs, worktreeGitDirs } from '../../src/sandbox/bwrap-args.js';
import { allowedEndpoints, allowedHosts, baseUrlEndpoints, hostAllowed, type SandboxPolicy } from '../../src/sandbox/policy.js';
import { probeSandbox } from '../../src/sandbox/probe.js';
import { endpointAllowed } from '../../src/sandbox/proxy.js';
import { useScratch } from '../helpers/scratch.js';

const scratch = useScratch();
const POLICY: SandboxPolicy = { network: 'agent', hide: [], allowWrite: [], allowHosts: ['*.example.com', 'Models.Internal'], memoryBytes: null, pids: null };

it('an agent reaches its model API, the base URLs of its environment and sandbox.allow_hosts; a command agent only the last two', () => {
  const env = { ANTHROPIC_BASE_URL: 'https://gateway.corp:8443/v1', OPENAI_BASE_URL: 'http://127.0.0.1:4010', OLLAMA_HOST: 'localhost:11434' };
  expect(baseUrlEndpoints(env)).toEqual([
    { host: 'gateway.corp', port: 8443 },
    { host: '127.0.0.1', port: 4010 },
    { host: 'localhost', port: 11434 },
  ]);
  expect(allowedHosts(POLICY, 'claude', env)).toEqual(['api.anthropic.com', 'statsig.anthropic.com', 'console.anthropic.com', 'claude.ai', 'gateway.corp', '*.example.com', 'models.internal']);
  expect(allowedHosts(POLICY, 'command', env)).toEqual(['gateway.corp', '*.example.com', 'models.internal']);
  expect(allowedHosts({ ...POLICY, network: 'packages' }, 'command', {})).toContain('registry.npmjs.org');
  expect([hostAllowed('a.example.com', ['*.example.com']), hostAllowed('example.com', ['*.example.com']), hostAllowed('evil-example.com', ['*.example.com'])]).toEqual([true, false, false]);
  const withPorts = { ...POLICY, allowHosts: ['127.0.0.1:4010', 'db.internal:5432', 'x.org'] };
  expect(allowedHosts(withPorts, 'command', {})).toEqual(['x.org']);
  expect(allowedEndpoints(withPorts, { OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1', ANTHROPIC_BASE_URL: 'http://localhost:9' })).toEqual([
    { host: 'localhost', port: 9 },
    { host: '127.0.0.1', port: 4010 },
    { host: 'db.internal', port: 5432 },
  ]);
  const rules = { hosts: ['api.anthropic.com'], endpoints: [{ host: '127.0.0.1', port: 4010 }] };
  expect([
    endpointAllowed(rules, { host: 'api.anthropic.com', port: 443 }),
    endpointAllowed(rules, { host: 'api.anthropic.com', port: 22 }),
    endpointAllowed(rules, { host: '127.0.0.1', port: 4010 }),
    endpointAllowed(rules, { host: '127.0.0.1', port: 5432 }),
  ]).toEqual([true, false, true, false]);
});

it('doctor says why sandboxing does not work and how to fix it: no bubblewrap, macOS', () => {
  const missing = probeSandbox('linux', '/nonexistent/bwrap');
  expect(renderSandbox(missing).split('\n').slice(0, 2)).toEqual([
    'sandbox  unavailable  bubblewrap (bwrap) is not installed',
    '         fix: install it: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora), sudo pacman -S bubblewrap (Arch)',
  ]);
  const mac = probeSandbox('darwin');
  expect([mac.ok, mac.problem, mac.fix]).toEqual([false, 'sandboxing needs Linux (bubblewrap); this is darwin', 'run Ringmaster in a Linux VM or container (docs/sandbox.md#macos)']);
});

it("a linked worktree's own and common git directories are writable in its sandbox; secrets and the data directory hidden", () => {
  const dir = scratch.temp('ringmaster-sandbox-wt-');
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
  git('worktree', 'add', '-q', join(dir, 'wt'));
  expect(worktreeGitDirs(join(dir, 'wt'))).toEqual([join(repo, '.git', 'worktrees', 'wt'), join(repo, '.git')]);
  expect(worktreeGitDirs(repo)).toEqual([]);
  const home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(home, '.claude'));
  writeFileSync(join(home, '.netrc'), 'machine x password y\n');
  const data = join(dir, 'data');
  mkdirSync(join(data, 'agents'), { recursive: true });
  const args = bwrapArgs({ policy: { ...POLICY, network: 'all' }, agent: 'claude', workspace: join(dir, 'wt'), home, dataDir: data, readable: [join(data, 'agents')], extraWritable: [], env: {} });
  expect(args).toEqual([
    ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp'],
    ...['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent'],
    ...['--tmpfs', join(home, '.ssh'), '--ro-bind', '/dev/null', join(home, '.netrc'), '--tmpfs', data],
    ...['--ro-bind', join(data, 'agents'), join(data, 'agents')],
    ...['--bind', join(home, '.claude'), join(home, '.claude')],
    ...['--bind', join(repo, '.git', 'worktrees', 'wt'), join(repo, '.git', 'worktrees', 'wt'), '--bind', join(repo, '.git'), join(repo, '.git')],
    ...['--bind', join(dir, 'wt'), join(dir, 'wt')],
    ...['--ro-bind', join(repo, '.git', 'hooks'), join(repo, '.git', 'hooks'), '--ro-bind', join(repo, '.git', 'config'), join(repo, '.git', 'config')],
    ...['--chdir', join(dir, 'wt')],
  ]);
});

it("POST /api/runs takes 'sandbox': true or the section's keys, validated and resolved as `ringmaster run` does", () => {
  const dir = scratch.temp('ringmaster-sandbox-request-');
  const spec = (sandbox: unknown) => resolveNewRun(runRequestSchema.parse({ workspace: dir, prompt: 'x', agent: 'command', agent_command: 'true', sandbox }), { RINGMASTER_HOME: dir }).spec.sandbox;
  expect(spec(true)).toEqual({ network: 'agent', hide: [], allowWrite: [], allowHosts: [], memoryBytes: null, pids: null });
  expect(spec({ network: 'none', allow_hosts: ['api.example.com'], hide: 'secrets,~/.config/x' })).toEqual({ network: 'none', hide: ['secrets', '~/.config/x'], allowWrite: [], allowHosts: ['api.example.com'], memoryBytes: null, pids: null });
  expect(spec(false)).toBe(null);
  expect(spec({ enabled: false, network: 'all' })).toBe(null);
  expect(() => spec({ memory: 'lots' })).toThrow("sandbox.memory: expected a size like 100MB, 2GiB or 512KB (or 'none'), got \"lots\"");
});
