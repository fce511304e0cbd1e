// Runs the real `claude` CLI (node_modules/.bin/claude) headless against a fake server, for end-to-end tests.
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { claudeFakeEnv } from './anthropic-server.js';

/** Absolute path of the installed claude CLI. */
export const CLAUDE_BIN = resolve(import.meta.dirname, '../../node_modules/.bin/claude');

/** What one claude run produced. */
export interface ClaudeRun {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** stdout's JSON lines, parsed (non-JSON lines are skipped). */
  lines: Record<string, unknown>[];
}

/** Options of one run. */
export interface RunClaudeOptions {
  /** Fake server base URL. */
  url: string;
  /** Isolated CLAUDE_CONFIG_DIR (and HOME) for this run. */
  configDir: string;
  cwd: string;
  prompt: string;
  /** Extra argv after `-p --output-format stream-json --verbose --dangerously-skip-permissions`. */
  args?: string[];
  /** Extra environment (wins over the defaults). */
  env?: Record<string, string>;
  /** Kill the process group after this long (default 45 s). */
  timeoutMs?: number;
}

/** Runs `claude -p --output-format stream-json --verbose` with the prompt on stdin and waits for it to exit. */
export function runClaude(options: RunClaudeOptions): Promise<ClaudeRun> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.configDir,
    // The run's temp dir (test/helpers/tmp-global-setup.ts), removed when the run ends.
    TMPDIR: tmpdir(),
    ...claudeFakeEnv(options.url, options.configDir),
    ...(options.env ?? {}),
  };
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions', ...(options.args ?? [])];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(CLAUDE_BIN, args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }, options.timeoutMs ?? 45_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const lines: Record<string, unknown>[] = [];
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not JSON: ignored
        }
      }
      resolvePromise({ exitCode, signal, stdout, stderr, lines });
    });
    child.stdin.end(options.prompt);
  });
}
