// agent.auto_install through the CLI: a claude that is not on PATH is installed with the real npm (from a local
// package tarball: no network) into the data directory, the run uses it, a second run finds it installed; an
// install that fails ends the run failed before any iteration; without the setting nothing is installed.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempRepo } from '../git/git-repo.js';
import { cleanEnv, normalise, runCli } from '../helpers/cli.js';

const dirs: string[] = [];
let tarball = '';

afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A fake Claude Code package (bin `claude`: stream-json with the completion signal), packed with npm. */
beforeAll(() => {
  const pkg = temp('rm-fake-claude-pkg-');
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'fake-claude-code', version: '1.2.3', bin: { claude: 'claude.sh' } }));
  writeFileSync(
    join(pkg, 'claude.sh'),
    [
      '#!/bin/sh',
      'cat >/dev/null',
      `echo '{"type":"system","subtype":"init","session_id":"s1","model":"claude-opus-5-5"}'`,
      `echo '{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"done <promise>COMPLETE</promise>"}],"usage":{"input_tokens":1,"output_tokens":1}},"session_id":"s1"}'`,
      `echo '{"type":"result","subtype":"success","is_error":false,"session_id":"s1","total_cost_usd":0.01,"usage":{"input_tokens":10,"output_tokens":2},"result":"done"}'`,
      '',
    ].join('\n'),
  );
  chmodSync(join(pkg, 'claude.sh'), 0o755);
  const out = temp('rm-fake-claude-tgz-');
  execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: pkg, env: userEnv(temp('rm-home-')) });
  tarball = join(out, 'fake-claude-code-1.2.3.tgz');
  expect(existsSync(tarball)).toBe(true);
});

/** A user's environment: no claude on PATH (npm test puts this package's node_modules/.bin there), no npm_* of the test runner. */
function userEnv(home: string): Record<string, string> {
  const env = cleanEnv({ RINGMASTER_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', npm_config_update_notifier: 'false' });
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  env.npm_config_update_notifier = 'false';
  env.npm_config_cache = join(home, 'npm-cache');
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d !== '' && !d.includes('node_modules') && !existsSync(join(d, 'claude')))
    .join(delimiter);
  return env;
}

function workspace(config: string): string {
  const dir = tempRepo({ 'PROMPT.md': 'Do the work.\n', 'ringmaster.yml': config });
  dirs.push(dir);
  return dir;
}

describe('agent.auto_install', () => {
  it('installs a missing claude with npm into the data directory, says so, and the run uses it; the next runs find it installed, with agent.auto_install off too', async () => {
    const home = temp('rm-home-');
    const env = userEnv(home);
    const dir = workspace(`agent:\n  auto_install: ${tarball}\n`);
    const installDir = join(home, 'agents', 'claude');
    const first = await runCli(['run', '--max-iterations', '2', '--checkpoint-interval', '0'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    const out = normalise(first.stdout);
    expect(out).toContain(`[T] claude is not on PATH: installing ${tarball} with npm into ${installDir} (agent.auto_install)...\n[T] Installed ${tarball} in `);
    expect(out).toContain('[T] Iteration 1/2 starting...');
    expect(out).toContain('[T] Success signal received: job complete after 1 iteration');
    expect(existsSync(join(installDir, 'node_modules', '.bin', 'claude'))).toBe(true);
    expect(JSON.parse(readFileSync(join(installDir, 'ringmaster-install.json'), 'utf8'))).toMatchObject({ package: tarball });
    // Never globally: nothing on the user's PATH changed.
    expect(execFileSync('sh', ['-c', 'command -v claude || true'], { env, encoding: 'utf8' })).toBe('');

    const second = await runCli(['run', '--max-iterations', '2', '--checkpoint-interval', '0'], { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toContain('installing');
    expect(second.stdout).toContain('Success signal received: job complete after 1 iteration');

    // With agent.auto_install off the copy in the data directory still runs (as one `doctor --install` put there).
    writeFileSync(join(dir, 'ringmaster.yml'), 'agent:\n  auto_install: false\n');
    const third = await runCli(['run', '--max-iterations', '2', '--checkpoint-interval', '0'], { cwd: dir, env });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('Success signal received: job complete after 1 iteration');

    const doctor = await runCli(['doctor', 'claude'], { cwd: dir, env });
    expect(doctor.stdout).toContain(`claude  found`);
    expect(doctor.stdout).toContain(join(installDir, 'node_modules', '.bin', 'claude'));
    expect(doctor.stdout).toContain("note: not on PATH; Ringmaster installed it in its data directory (doctor --install or agent.auto_install): 'ringmaster run' uses that copy");
  }, 180_000);

  it('an install that fails ends the run failed with npm’s reason, before any iteration', async () => {
    const home = temp('rm-home-');
    const env = userEnv(home);
    const missing = join(temp('rm-nothing-'), 'nope-1.0.0.tgz');
    const dir = workspace(`agent:\n  auto_install: ${missing}\n`);
    const r = await runCli(['run', '--max-iterations', '2', '--checkpoint-interval', '0', '--json'], { cwd: dir, env });
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: string | null; stop_reason?: string; status?: string; phase?: string });
    expect(events.map((e) => e.type)).toEqual(['run_started', 'agent_install', 'failed', 'run_finished']);
    expect(events[1]).toMatchObject({ phase: 'installing', package: missing });
    const finished = events.at(-1);
    expect(finished).toMatchObject({ status: 'failed', stop_reason: 'fatal_error' });
    expect(finished?.message).toMatch(new RegExp(`^agent\\.auto_install: installing ${missing.replace(/[.]/g, '\\.')} into ${join(home, 'agents', 'claude')} failed \\(npm exited with \\d+\\)`));
    expect(r.code).not.toBe(0);
  }, 180_000);

  it('is off by default: a missing claude is a missing binary, nothing is installed', async () => {
    const home = temp('rm-home-');
    mkdirSync(home, { recursive: true });
    const env = userEnv(home);
    const dir = workspace('loop:\n  failure_threshold: 1\n');
    const r = await runCli(['run', '--max-iterations', '1', '--checkpoint-interval', '0'], { cwd: dir, env });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain(
      'reason: claude not found: install it with `ringmaster doctor --install claude` (npm @anthropic-ai/claude-code), or set agent.auto_install: true to have Ringmaster install it in its data directory',
    );
    expect(existsSync(join(home, 'agents'))).toBe(false);
  }, 60_000);

  it('refuses a value that is neither true, false nor a package spec', async () => {
    const home = temp('rm-home-');
    const dir = workspace('agent:\n  auto_install: 3\n');
    const r = await runCli(['run', '--max-iterations', '1', '--dry-run'], { cwd: dir, env: userEnv(home) });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('agent.auto_install');
    expect(r.stderr).toContain('expected true, false or a non-empty string');
  }, 60_000);
});
