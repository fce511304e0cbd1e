// Secrets in the environment (API keys, tokens, passwords) never reach what Ringmaster writes or prints: the
// iteration log, the terminal (progress lines, --verbose, --json), the database (error messages, events, the
// stored agent command). Real-looking values, an agent that prints them (split across writes), files 0600.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../../src/store/paths.js';
import { cleanEnv, runCli, useWorkspace } from '../helpers/cli.js';
import { testHome, useFreshHome } from '../helpers/home.js';
import { everyFileText } from '../helpers/files.js';

const ws = useWorkspace('Do the work.\n');
useFreshHome();

const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-Zq9xLr7TmWc2Vb4Nh8Kd1Fs6Gj3Pp5Yt0Ue-AAAA',
  GITHUB_TOKEN: 'ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s',
  MY_DB_PASSWORD: 'correct-horse-battery-staple',
};
const LITERAL = 'sk-literal-option-value-0123456789';

/** An agent that prints every secret, the key split across two writes and across stdout/stderr, then fails quoting one. */
function leakyAgent(dir: string): string {
  const script = join(dir, 'leaky.mjs');
  writeFileSync(
    script,
    `const key = process.env.ANTHROPIC_API_KEY;
process.stdin.resume();
process.stdin.on('end', async () => {
  const pause = () => new Promise((r) => setTimeout(r, 50));
  process.stdout.write('my key is ' + key.slice(0, 10));
  await pause();
  process.stdout.write(key.slice(10) + '\\n');
  process.stderr.write('token=' + process.env.GITHUB_TOKEN + '\\n');
  process.stdout.write('args: ' + process.argv.slice(2).join(' ') + '\\n');
  await pause();
  process.stdout.write('fatal: could not log in with password ' + process.env.MY_DB_PASSWORD + '\\n');
  process.exitCode = 1;
});
`,
  );
  return script;
}


function expectNoSecret(text: string, where: string): void {
  for (const value of [...Object.values(SECRETS), LITERAL]) expect(text.includes(value), `${where} contains ${value}`).toBe(false);
}

describe('secrets are redacted everywhere Ringmaster writes or prints', () => {
  it.each([[['--verbose']], [['--json', '--verbose']]])('run %j: log, terminal, database', async (flags) => {
    const command = `${process.execPath} ${leakyAgent(ws.dir)} --token ${SECRETS.GITHUB_TOKEN} --api-key ${LITERAL}`;
    const r = await runCli(['run', '--agent-command', command, '--max-iterations', '1', '--checkpoint-interval', '0', ...flags], {
      cwd: ws.dir,
      env: cleanEnv(SECRETS),
    });
    expect(r.code).toBe(2);
    expectNoSecret(r.stdout, 'stdout');
    expectNoSecret(r.stderr, 'stderr');
    expect(r.stdout).toContain('[REDACTED:ANTHROPIC_API_KEY]');
    expect(r.stdout + r.stderr).toContain('[REDACTED:MY_DB_PASSWORD]');
    expectNoSecret(everyFileText(testHome()), 'the files of the data directory (logs, database, WAL)');
    const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env: cleanEnv() })).stdout) as Array<{ id: string }>;
    const show = await runCli(['show', runs[0]?.id ?? '', '--events', '--json'], { cwd: ws.dir, env: cleanEnv() });
    expectNoSecret(show.stdout, 'show --events --json');
    const shown = JSON.parse(show.stdout) as { run: { spec: { agent: { command: string[] } } }; iterations: Array<{ error_message: string; log_path: string }> };
    expect(shown.run.spec.agent.command.slice(-4)).toEqual(['--token', '[REDACTED:GITHUB_TOKEN]', '--api-key', '[REDACTED]']);
    expect(shown.iterations[0]?.error_message).toBe('fatal: could not log in with password [REDACTED:MY_DB_PASSWORD]');
    const log = readFileSync(shown.iterations[0]?.log_path ?? '', 'utf8');
    expect(log).toContain('my key is [REDACTED:ANTHROPIC_API_KEY]\n');
    expect(log).toContain('token=[REDACTED:GITHUB_TOKEN]\n');
    expect(statSync(shown.iterations[0]?.log_path ?? '').mode & 0o777).toBe(0o600);
    expect(statSync(join(shown.iterations[0]?.log_path ?? '', '..')).mode & 0o777).toBe(0o700);
    expect(statSync(databasePath(testHome())).mode & 0o077).toBe(0);
  }, 30_000);

  it('resume puts a redacted secret back from the environment, and refuses (saying which) when it cannot', async () => {
    const script = join(ws.dir, 'argv.mjs');
    writeFileSync(script, "process.stdin.resume(); process.stdin.on('end', () => require('node:fs').writeFileSync('argv.txt', process.argv.slice(2).join(' ')));\n".replace("require('node:fs')", "(await import('node:fs'))").replace("() =>", "async () =>"));
    const command = `${process.execPath} ${script} --token ${SECRETS.GITHUB_TOKEN}`;
    const first = await runCli(['run', '--agent-command', command, '--max-iterations', '1', '--checkpoint-interval', '0'], { cwd: ws.dir, env: cleanEnv(SECRETS) });
    expect(first.code).toBe(2);
    const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ws.dir, env: cleanEnv() })).stdout) as Array<{ id: string }>;
    const id = runs[0]?.id ?? '';
    const without = await runCli(['resume', id, '--max-iterations', '2'], { cwd: ws.dir, env: cleanEnv() });
    expect(without.stderr).toContain("the run was stored without its secrets (GITHUB_TOKEN): set GITHUB_TOKEN in the environment to resume");
    expect(without.code).toBe(64);
    writeFileSync(join(ws.dir, 'argv.txt'), '');
    const resumed = await runCli(['resume', id, '--max-iterations', '2'], { cwd: ws.dir, env: cleanEnv(SECRETS) });
    expect(resumed.code).toBe(2);
    expect(readFileSync(join(ws.dir, 'argv.txt'), 'utf8')).toBe(`--token ${SECRETS.GITHUB_TOKEN}`);
  }, 30_000);
});
