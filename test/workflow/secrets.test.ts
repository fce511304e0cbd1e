// A workflow's message with a secret of the environment in it: stored (run metadata, events) redacted, never in
// the data directory; a resumed run gets the real value back from the environment, or is refused naming it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { testHome, useFreshHome } from '../helpers/home.js';
import { env, jsonEvents, promptOf, runWorkflow, workspace } from './run-harness.js';
import { everyFileText } from '../helpers/files.js';

useFreshHome();
const SECRET = { MY_DB_PASSWORD: 'pa55-w0rd-of-the-workflow' };


describe('a workflow message holding a secret', () => {
  it('is stored redacted and restored from the environment on resume', async () => {
    const dir = workspace({ fix: 'name: fix\nloop:\n  until: DONE\n  max_iterations: 3\nprompt: "Use $USER_MESSAGE"\n' }, [{ say: 'one\n' }, { say: 'DONE\n' }]);
    const first = await runWorkflow(dir, ['fix', `password ${SECRET.MY_DB_PASSWORD}`, '--max-iterations', '1', '--json'], SECRET);
    const id = jsonEvents(first.stdout)[0]?.run_id ?? '';
    expect(promptOf(dir, 1)).toBe(`Use password ${SECRET.MY_DB_PASSWORD}`);
    expect(first.stdout).not.toContain(SECRET.MY_DB_PASSWORD);
    expect(everyFileText(testHome())).not.toContain(SECRET.MY_DB_PASSWORD);
    const shown = JSON.parse((await runCli(['show', id, '--json'], { cwd: dir, env: env() })).stdout) as { run: { meta: { user_message: string } } };
    expect(shown.run.meta.user_message).toBe('password [REDACTED:MY_DB_PASSWORD]');
    const refused = await runCli(['resume', id, '--max-iterations', '3'], { cwd: dir, env: env() });
    expect(refused.stderr).toContain('the run was stored without its secrets (MY_DB_PASSWORD): set MY_DB_PASSWORD in the environment to resume');
    expect(refused.code).toBe(64);
    writeFileSync(join(dir, '.agent-prompt-2'), '');
    const resumed = await runCli(['resume', id, '--max-iterations', '3'], { cwd: dir, env: env(SECRET) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(promptOf(dir, 2)).toBe(`Use password ${SECRET.MY_DB_PASSWORD}`);
    expect(everyFileText(testHome())).not.toContain(SECRET.MY_DB_PASSWORD);
  }, 60_000);
});
