// `ringmaster hook install|uninstall` (preserving others' settings) and `ringmaster loop start|status|cancel`.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { hookCommand, isOurCommand, withoutStopHook, withStopHook } from '../../src/hook/settings-install.js';
import { memoryIO } from './memory-io.js';

let project = '';
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'rm-install-'));
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const OTHER_STOP = { hooks: [{ type: 'command', command: '/usr/local/bin/notify-done', timeout: 5 }] };
const EXISTING = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }],
    Stop: [OTHER_STOP],
  },
};

async function settings(): Promise<unknown> {
  return JSON.parse(await readFile(join(project, '.claude', 'settings.json'), 'utf8')) as unknown;
}

describe('settings transforms', () => {
  it('builds an absolute command for this installation and recognises ours', () => {
    const command = hookCommand('/opt/node 24/bin/node', '/srv/ringmaster/bin/ringmaster.js');
    expect(command).toBe("'/opt/node 24/bin/node' /srv/ringmaster/bin/ringmaster.js hook stop");
    expect(isOurCommand(command)).toBe(true);
    expect(isOurCommand('/usr/local/bin/ringmaster hook stop')).toBe(true);
    expect(isOurCommand('/usr/local/bin/notify-done')).toBe(false);
    expect(isOurCommand('ringmaster hook stop --other')).toBe(false);
  });

  it('adds once, replaces an older installation of ours, and removes only ours', () => {
    const added = withStopHook(EXISTING, 'node /a/bin/ringmaster.js hook stop');
    expect(added.changed).toBe(true);
    expect(added.settings).toEqual({
      ...EXISTING,
      hooks: { ...EXISTING.hooks, Stop: [OTHER_STOP, { hooks: [{ type: 'command', command: 'node /a/bin/ringmaster.js hook stop', timeout: 30 }] }] },
    });
    expect(withStopHook(added.settings, 'node /a/bin/ringmaster.js hook stop')).toEqual({ settings: added.settings, changed: false });
    const moved = withStopHook(added.settings, 'node /b/bin/ringmaster.js hook stop');
    expect(moved.changed).toBe(true);
    expect((moved.settings.hooks as { Stop: unknown[] }).Stop).toEqual([
      OTHER_STOP,
      { hooks: [{ type: 'command', command: 'node /b/bin/ringmaster.js hook stop', timeout: 30 }] },
    ]);
    expect(withoutStopHook(moved.settings)).toEqual({ settings: EXISTING, removed: ['node /b/bin/ringmaster.js hook stop'] });
  });

  it('keeps other hooks of a shared group and drops only what it emptied', () => {
    const shared = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x ringmaster hook stop' }, { type: 'command', command: 'keep.sh' }] }] } };
    expect(withoutStopHook(shared).settings).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'keep.sh' }] }] } });
    expect(withoutStopHook({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x ringmaster hook stop' }] }] } }).settings).toEqual({});
  });
});

describe('hook install / uninstall commands', () => {
  it('installs idempotently into existing settings and uninstalls only ours', async () => {
    await mkdir(join(project, '.claude'));
    await writeFile(join(project, '.claude', 'settings.json'), JSON.stringify(EXISTING));
    const io = memoryIO(project);
    expect(await main(['hook', 'install'], io)).toBe(0);
    const command = hookCommand();
    expect(io.out()).toBe(`Installed: Stop hook in ${join(project, '.claude', 'settings.json')}\n  command: ${command}\n  timeout: 630s (covers a verify check of loop.verify_timeout)\n`);
    const again = memoryIO(project);
    expect(await main(['hook', 'install', '--codex'], again)).toBe(0);
    expect(again.out()).toBe(
      `Already installed: Stop hook in ${join(project, '.claude', 'settings.json')}\n` +
        `Installed: Stop hook in ${join(project, '.codex', 'hooks.json')}\n  command: ${command}\n  timeout: 630s (covers a verify check of loop.verify_timeout)\n`,
    );
    expect(await settings()).toEqual({
      ...EXISTING,
      hooks: { ...EXISTING.hooks, Stop: [OTHER_STOP, { hooks: [{ type: 'command', command, timeout: 630 }] }] },
    });
    expect(JSON.parse(await readFile(join(project, '.codex', 'hooks.json'), 'utf8'))).toEqual({
      hooks: { Stop: [{ hooks: [{ type: 'command', command, timeout: 630 }] }] },
    });
    const out = memoryIO(project);
    expect(await main(['hook', 'uninstall'], out)).toBe(0);
    expect(out.out()).toBe(
      `Removed: 1 ringmaster Stop hook from ${join(project, '.claude', 'settings.json')}\n` +
        `Removed: 1 ringmaster Stop hook from ${join(project, '.codex', 'hooks.json')}\n`,
    );
    expect(await settings()).toEqual(EXISTING);
  });

  it('refuses to touch a settings file that is not valid JSON', async () => {
    await mkdir(join(project, '.claude'));
    await writeFile(join(project, '.claude', 'settings.json'), '{ "model": ');
    const io = memoryIO(project);
    expect(await main(['hook', 'install'], io)).toBe(64);
    expect(io.err()).toMatch(/^ringmaster hook: .*settings\.json: file: not valid JSON \(.*\); fix it first, nothing was changed\n$/);
    expect(await readFile(join(project, '.claude', 'settings.json'), 'utf8')).toBe('{ "model": ');
  });
});

describe('loop commands', () => {
  it('starts a loop, refuses a second one, shows status, and cancels', async () => {
    const io = memoryIO(project);
    expect(await main(['loop', 'start', 'Fix the tests', '--max-iterations', '4', '--completion-marker', 'FIXED'], io)).toBe(0);
    const path = join(project, '.ringmaster', 'loop-tracker.md');
    expect(io.out()).toBe(
      `Loop started: ${path}\n  max iterations: 4, completion marker: FIXED\n` +
        '  session: the first Claude Code session that stops in this project\n' +
        `  decisions recorded in ${join(project, '.ringmaster', 'hook-decisions.log')} (no store in this project)\n` +
        "  warning: the Stop hook is not installed here; run 'ringmaster hook install'\n",
    );
    const second = memoryIO(project);
    expect(await main(['loop', 'start', 'Other'], second)).toBe(64);
    expect(second.err()).toBe(`ringmaster loop: a loop is already active in ${path}; run 'ringmaster loop cancel' first or pass --force\n`);

    const status = memoryIO(project);
    expect(await main(['loop', 'status', '--json'], status)).toBe(0);
    expect(JSON.parse(status.out())).toMatchObject({
      tracker: path,
      loop: { iteration: 0, max_iterations: 4, completion_marker: 'FIXED', active: true, session_id: null, task: 'Fix the tests' },
    });

    const cancel = memoryIO(project);
    expect(await main(['loop', 'cancel'], cancel)).toBe(0);
    expect(cancel.out()).toBe(`Loop cancelled after 0 continuation(s): ${path}\n`);
    const text = await readFile(path, 'utf8');
    expect(text).toContain('\nactive: false\n');
    expect(text).toContain('\nstop_reason: user_stop\n');
    const none = memoryIO(project);
    expect(await main(['loop', 'cancel'], none)).toBe(0);
    expect(none.out()).toBe('No active loop.\n');
  });

  it('binds to the Claude session it runs in, and uses the template body', async () => {
    await writeFile(join(project, 'tpl.md'), '# E2E Progress\n\n## Status\n_pending_\n');
    const io = memoryIO(project, { CLAUDE_CODE_SESSION_ID: 'abc-123' });
    expect(await main(['loop', 'start', 'Task', '--tracker-template', 'tpl.md'], io)).toBe(0);
    const text = await readFile(join(project, '.ringmaster', 'loop-tracker.md'), 'utf8');
    expect(text).toContain('\nsession_id: abc-123\n');
    expect(text.endsWith('---\n# E2E Progress\n\n## Status\n_pending_\n')).toBe(true);
  });

  it('rejects bad flags and a template that already contains the marker', async () => {
    await writeFile(join(project, 'tpl.md'), 'Write COMPLETE here when done\n');
    const cases: [string[], string][] = [
      [['loop', 'start'], 'ringmaster loop: missing the task: ringmaster loop start "<task>"\n'],
      [['loop', 'start', 'T', '--max-iterations', '0'], "ringmaster loop: --max-iterations: expected a whole number >= 1, got '0'\n"],
      [
        ['loop', 'start', 'T', '--tracker-template', 'tpl.md'],
        "ringmaster loop: the tracker template already contains the completion marker 'COMPLETE', so the loop would end at the first stop; choose another marker or remove it from the template\n",
      ],
      [['loop', 'bogus'], "ringmaster loop: unknown subcommand 'bogus'\n"],
    ];
    for (const [argv, message] of cases) {
      const io = memoryIO(project);
      expect(await main(argv, io)).toBe(64);
      expect(io.err()).toBe(message);
    }
  });
});
