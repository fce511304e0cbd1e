// `ringmaster doctor`'s checks: per agent CLI, is the binary there (on PATH, where `ringmaster run` looks),
// which version, which credentials it would use (names only, never values), and how to install it.
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What doctor knows about one agent CLI. */
export interface AgentCli {
  name: string;
  displayName: string;
  binary: string;
  /** npm package that installs it, or null when it does not come from npm. */
  npmPackage: string | null;
  /** How to install it by hand. */
  installHint: string;
  /** Environment variables holding credentials it reads (reported by name only). */
  authEnv: string[];
  /** Config/credential paths it reads, relative to HOME unless absolute; `$VAR` entries are read from env. */
  authPaths: string[];
  /** What to do when no credential is found. */
  loginHint: string;
}

/** The agent CLIs Ringmaster can drive. */
export const AGENT_CLIS: readonly AgentCli[] = [
  {
    name: 'claude',
    displayName: 'Claude Code',
    binary: 'claude',
    npmPackage: '@anthropic-ai/claude-code',
    installHint: 'npm install -g @anthropic-ai/claude-code',
    authEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'],
    authPaths: ['$CLAUDE_CONFIG_DIR/.credentials.json', '.claude/.credentials.json', '.claude.json'],
    loginHint: 'set ANTHROPIC_API_KEY, or run `claude` once and /login',
  },
  {
    name: 'codex',
    displayName: 'Codex',
    binary: 'codex',
    npmPackage: '@openai/codex',
    installHint: 'npm install -g @openai/codex',
    authEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    authPaths: ['$CODEX_HOME/auth.json', '.codex/auth.json'],
    loginHint: 'set OPENAI_API_KEY, or run `codex login`',
  },
  {
    name: 'gemini',
    displayName: 'Gemini CLI',
    binary: 'gemini',
    npmPackage: '@google/gemini-cli',
    installHint: 'npm install -g @google/gemini-cli',
    authEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS', 'GOOGLE_GENAI_USE_VERTEXAI'],
    authPaths: ['.gemini/oauth_creds.json', '.gemini/settings.json'],
    loginHint: 'set GEMINI_API_KEY, or run `gemini` once and sign in',
  },
  {
    name: 'opencode',
    displayName: 'opencode',
    binary: 'opencode',
    npmPackage: 'opencode-ai',
    installHint: 'npm install -g opencode-ai',
    authEnv: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'OPENCODE_CONFIG_CONTENT'],
    authPaths: ['.local/share/opencode/auth.json', '.config/opencode/opencode.json'],
    loginHint: 'set a provider key (e.g. ANTHROPIC_API_KEY), or run `opencode auth login`',
  },
  {
    name: 'copilot',
    displayName: 'GitHub Copilot CLI',
    binary: 'copilot',
    npmPackage: '@github/copilot',
    installHint: 'npm install -g @github/copilot',
    authEnv: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN', 'COPILOT_PROVIDER_API_KEY'],
    authPaths: ['.copilot/config.json'],
    loginHint: 'set COPILOT_GITHUB_TOKEN (a fine-grained token with Copilot access), or run `copilot` and /login',
  },
  {
    name: 'amp',
    displayName: 'Amp',
    binary: 'amp',
    npmPackage: '@ampcode/cli',
    installHint: 'npm install -g @ampcode/cli',
    authEnv: ['AMP_API_KEY'],
    authPaths: ['.local/share/amp/secrets.json'],
    loginHint: 'set AMP_API_KEY (ampcode.com/settings); without it amp waits for an interactive login',
  },
  {
    name: 'cursor',
    displayName: 'Cursor',
    binary: 'cursor-agent',
    npmPackage: null,
    installHint: 'curl https://cursor.com/install -fsS | bash',
    authEnv: ['CURSOR_API_KEY'],
    authPaths: ['.cursor/cli-config.json'],
    loginHint: 'set CURSOR_API_KEY, or run `cursor-agent login`',
  },
];

/** The agent CLI named `name`, or undefined. */
export function findAgentCli(name: string): AgentCli | undefined {
  return AGENT_CLIS.find((a) => a.name === name || a.binary === name);
}

/** What a run says when the agent CLI `name` is not on PATH: how to install it (and agent.auto_install for npm packages). */
export function missingBinaryMessage(name: string): string {
  const cli = findAgentCli(name);
  if (!cli) return `${name} not found on PATH`;
  if (cli.npmPackage === null) return `${cli.binary} not found: install it with \`${cli.installHint}\``;
  return `${cli.binary} not found: install it with \`ringmaster doctor --install ${cli.name}\` (npm ${cli.npmPackage}), or set agent.auto_install: true to have Ringmaster install it in its data directory`;
}

/** This package's node_modules/.bin (from src/agents or dist/agents, two levels below the package root). */
export const PACKAGE_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** One agent's diagnosis. Only names of credentials, never their values. */
export interface AgentReport {
  name: string;
  displayName: string;
  found: boolean;
  path: string | null;
  version: string | null;
  /** Credential env variables that are set (names only). */
  authEnv: string[];
  /** Credential/config files that exist. */
  authFiles: string[];
  /** One line: which auth it would use, or what to do. */
  auth: string;
  install: string;
  notes: string[];
}

/** What doctor reads from the world (injected for tests). */
export interface DoctorEnv {
  env: Readonly<Record<string, string | undefined>>;
  isRoot: boolean;
  /** Directories where a copy `run` does not use may be (this package's node_modules/.bin): reported in a note. */
  extraBinDirs: readonly string[];
  /** The copy Ringmaster installed in its data directory (doctor --install, agent.auto_install), or null. */
  installedBinary?: (name: string) => string | null;
}

function isExecutableFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Finds a binary on PATH, then in the extra dirs; returns its path or null. */
export function findBinary(binary: string, env: Readonly<Record<string, string | undefined>>, extraBinDirs: readonly string[]): string | null {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter((d) => d !== ''), ...extraBinDirs];
  for (const dir of dirs) {
    const candidate = join(dir, binary);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Runs `<path> --version` (10 s cap) and returns its first line, or null. */
export function readVersion(path: string, env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { env: { ...env }, timeout: 10_000, maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
      const text = `${stdout}`.trim() || `${stderr}`.trim();
      const first = text.split('\n')[0]?.trim() ?? '';
      resolve(error && first === '' ? null : first === '' ? null : first);
    });
  });
}

function authPathsPresent(cli: AgentCli, env: Readonly<Record<string, string | undefined>>): string[] {
  const home = env.HOME ?? homedir();
  const found: string[] = [];
  for (const entry of cli.authPaths) {
    let path: string;
    if (entry.startsWith('$')) {
      const [variable, ...rest] = entry.slice(1).split('/');
      const base = variable !== undefined ? env[variable] : undefined;
      if (base === undefined || base === '') continue;
      path = join(base, ...rest);
    } else {
      path = join(home, entry);
    }
    if (existsSync(path)) found.push(path);
  }
  return found;
}

/** Diagnoses one agent CLI. */
export async function diagnoseAgent(cli: AgentCli, world: DoctorEnv): Promise<AgentReport> {
  // Found means what `ringmaster run` finds: the agent is started by name, from PATH, or else the copy Ringmaster
  // installed in its data directory (doctor --install, agent.auto_install). A copy in this package's own
  // node_modules/.bin (its development dependencies) is reported, not counted.
  const onPath = findBinary(cli.binary, world.env, []);
  const installed = onPath === null ? (world.installedBinary?.(cli.name) ?? null) : null;
  const path = onPath ?? installed;
  const unused = path === null ? findBinary(cli.binary, {}, world.extraBinDirs) : null;
  const version = path === null ? null : await readVersion(path, world.env);
  const authEnv = cli.authEnv.filter((name) => (world.env[name] ?? '') !== '');
  const authFiles = authPathsPresent(cli, world.env);
  const auth =
    authEnv.length > 0
      ? `env ${authEnv.join(', ')}`
      : authFiles.length > 0
        ? `login/config in ${authFiles.join(', ')}`
        : `none found: ${cli.loginHint}`;
  const notes: string[] = [];
  if (installed !== null) {
    notes.push(`not on PATH; Ringmaster installed it in its data directory (doctor --install or agent.auto_install): 'ringmaster run' uses that copy`);
  }
  if (unused !== null) {
    notes.push(`not on PATH, so 'ringmaster run' will not find it; a copy is in ${unused} (Ringmaster's own dependencies): put ${dirname(unused)} on PATH to use it, or install it`);
  }
  if (cli.name === 'claude' && world.isRoot) {
    const inherited = world.env.IS_SANDBOX;
    const replaced = inherited === undefined || inherited === '1' ? '' : ` (your IS_SANDBOX=${inherited} is replaced in the agent's environment only)`;
    notes.push(`running as root: claude refuses --dangerously-skip-permissions unless IS_SANDBOX=1; ringmaster gives the agent IS_SANDBOX=1 in bypass mode${replaced}`);
  }
  const install = cli.npmPackage !== null ? `ringmaster doctor --install ${cli.name}  (${cli.npmPackage} with npm, into Ringmaster's data directory)` : cli.installHint;
  return { name: cli.name, displayName: cli.displayName, found: path !== null, path, version, authEnv, authFiles, auth, install, notes };
}

/** Diagnoses several agents in parallel, in the given order. */
export function diagnoseAgents(clis: readonly AgentCli[], world: DoctorEnv): Promise<AgentReport[]> {
  return Promise.all(clis.map((cli) => diagnoseAgent(cli, world)));
}
