// What a sandboxed run may do (stored in its spec, kept on resume and takeover), and the paths and hosts
// that follow from it for one agent. Pure: no I/O.

/** `sandbox.network`: which hosts the agent may reach. */
export type SandboxNetwork = 'agent' | 'none' | 'all' | 'packages';

/** The sandbox a run's agents run in (RunSpec.sandbox). Paths may start with `~/` (the agent's HOME). */
export interface SandboxPolicy {
  network: SandboxNetwork;
  /** Paths hidden besides the defaults (DEFAULT_HIDDEN, the data directory). */
  hide: string[];
  /** Paths writable besides the workspace and the agent's own state. */
  allowWrite: string[];
  /** Hosts reachable besides the agent's own (network `agent` or `packages`); `*.example.com` for subdomains. */
  allowHosts: string[];
  /** Memory cap in bytes (cgroup v2), or null. */
  memoryBytes: number | null;
  /** Process cap (cgroup v2), or null. */
  pids: number | null;
}

/** Secrets of the user hidden from every sandboxed agent (relative to HOME). */
export const DEFAULT_HIDDEN: readonly string[] = ['.ssh', '.aws', '.gnupg', '.config/gh', '.netrc', '.docker', '.kube', '.git-credentials', '.config/gcloud', '.azure', '.pgpass'];

/** Where each agent CLI keeps its own state (sessions, settings, login), writable inside its sandbox; relative to HOME. */
export const AGENT_STATE: Readonly<Record<string, readonly string[]>> = {
  claude: ['.claude', '.claude.json', '.claude.json.backup', '$CLAUDE_CONFIG_DIR'],
  codex: ['.codex', '$CODEX_HOME'],
  gemini: ['.gemini'],
  opencode: ['.local/share/opencode', '.local/state/opencode', '.config/opencode', '.cache/opencode'],
  copilot: ['.copilot'],
  amp: ['.config/amp', '.local/share/amp', '.cache/amp'],
  cursor: ['.cursor', '.config/cursor'],
};

/** The model API hosts each agent CLI needs (network `agent`); a `command` agent has none. */
export const AGENT_HOSTS: Readonly<Record<string, readonly string[]>> = {
  claude: ['api.anthropic.com', 'statsig.anthropic.com', 'console.anthropic.com', 'claude.ai'],
  codex: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
  gemini: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com', 'aiplatform.googleapis.com'],
  opencode: ['api.anthropic.com', 'api.openai.com', 'generativelanguage.googleapis.com', 'openrouter.ai', 'models.dev', 'opencode.ai'],
  copilot: ['api.githubcopilot.com', '*.githubcopilot.com', 'api.github.com', 'github.com'],
  amp: ['ampcode.com', '*.ampcode.com'],
  cursor: ['cursor.com', '*.cursor.com', '*.cursor.sh'],
};

/** The package registries of network `packages` (added to the agent's hosts). */
export const PACKAGE_HOSTS: readonly string[] = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'proxy.golang.org',
  'sum.golang.org',
  'crates.io',
  'index.crates.io',
  'static.crates.io',
  'rubygems.org',
  'repo.maven.apache.org',
  'github.com',
  'codeload.github.com',
  'objects.githubusercontent.com',
];

/** Variables whose value is a base URL the agent talks to (its model API, through a gateway or a local server). */
export const BASE_URL_VARIABLES: readonly string[] = ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL', 'OPENAI_API_BASE', 'GOOGLE_GEMINI_BASE_URL', 'GEMINI_BASE_URL', 'CODEX_BASE_URL', 'OLLAMA_HOST'];

/** A host and port the agent may reach. */
export interface Endpoint {
  host: string;
  port: number;
}

/** The endpoints of the base URLs in the environment (a URL without a port gets its scheme's). */
export function baseUrlEndpoints(env: Readonly<Record<string, string | undefined>>): Endpoint[] {
  const out: Endpoint[] = [];
  for (const name of BASE_URL_VARIABLES) {
    const value = env[name];
    if (value === undefined || value.trim() === '') continue;
    try {
      const url = new URL(value.includes('://') ? value : `http://${value}`);
      const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
      out.push({ host: url.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port });
    } catch {
      // Not a URL: nothing to allow.
    }
  }
  return out;
}

/** True for a loopback host (reached through a bridge into the sandbox, never through the proxy). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** An `allow_hosts` entry with a port (`host:port`, `[::1]:port`) as an endpoint, or null for a plain host pattern. */
export function endpointEntry(entry: string): Endpoint | null {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(entry.trim());
  return m?.[1] && m[2] ? { host: m[1].toLowerCase(), port: Number(m[2]) } : null;
}

/** The host patterns an agent may reach under a policy on ports 80 and 443 (entries with a port: see allowedEndpoints). */
export function allowedHosts(policy: SandboxPolicy, agent: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const own = agent === 'command' ? [] : (AGENT_HOSTS[agent] ?? []);
  const fromEnv = baseUrlEndpoints(env).filter((e) => !isLoopback(e.host)).map((e) => e.host);
  const packages = policy.network === 'packages' ? PACKAGE_HOSTS : [];
  const named = policy.allowHosts.filter((h) => endpointEntry(h) === null).map((h) => h.toLowerCase());
  return [...new Set([...own, ...fromEnv, ...packages, ...named])];
}

/**
 * The exact endpoints an agent may reach: loopback base URLs of its environment and `allow_hosts` entries with a
 * port (`127.0.0.1:4010`, `db.internal:5432`). Loopback ones are bridged into the sandbox at the same address.
 */
export function allowedEndpoints(policy: SandboxPolicy, env: Readonly<Record<string, string | undefined>>): Endpoint[] {
  const fromEnv = baseUrlEndpoints(env).filter((e) => isLoopback(e.host));
  const entries = policy.allowHosts.map(endpointEntry).filter((e): e is Endpoint => e !== null);
  const seen = new Set<string>();
  return [...fromEnv, ...entries].filter((e) => !seen.has(`${e.host}:${e.port}`) && seen.add(`${e.host}:${e.port}`) !== undefined);
}

/** True when `host` matches one of the patterns (`*.example.com` matches its subdomains, not itself). */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((p) => (p.startsWith('*.') ? h.endsWith(p.slice(1)) : h === p));
}

/** A path of the policy with `~` made the home directory. */
export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? `${home}/${path.slice(2)}` : path;
}
