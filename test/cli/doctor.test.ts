// `ringmaster doctor` in-process with fake agent binaries on PATH and a fake npm: found/missing, versions,
// credential names (never values), the root note, and --install consent.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_CLIS, diagnoseAgent, findAgentCli } from '../../src/agents/doctor.js';
import type { CliIO } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

let dir: string;
let bin: string;
let home: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rm-doctor-'));
  bin = join(dir, 'bin');
  home = join(dir, 'home');
  await mkdir(bin, { recursive: true });
  await mkdir(join(home, '.codex'), { recursive: true });
  await writeFile(join(home, '.codex', 'auth.json'), '{}');
  await fakeBinary('amp', 'echo "0.0.1790000000-gabc"');
  // A fake npm: `install --prefix DIR ... SPEC` records its arguments and leaves the agents' commands in DIR.
  await fakeBinary(
    'npm',
    `echo "$@" > ${join(dir, 'npm-args')}; /bin/mkdir -p "$3/node_modules/.bin"; for b in claude codex; do printf '#!/bin/sh\\necho 9.9.9\\n' > "$3/node_modules/.bin/$b"; /bin/chmod +x "$3/node_modules/.bin/$b"; done; echo installed`,
  );
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fakeBinary(name: string, body: string): Promise<void> {
  const path = join(bin, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
}

function io(env: Record<string, string>, tty = false, input = ''): { io: CliIO; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const stdin = new PassThrough();
  stdin.end(input);
  Object.assign(stdin, { isTTY: tty });
  return {
    io: {
      stdout: { write: (c: string) => (out += c), isTTY: false },
      stderr: { write: (c: string) => (err += c), isTTY: tty },
      stdin,
      env,
      cwd: dir,
      onSignal: () => () => undefined,
    },
    out: () => out,
    err: () => err,
  };
}

describe('doctor', () => {
  it('reports found, version and credential names only', async () => {
    const world = { env: { PATH: bin, HOME: home, AMP_API_KEY: 'amp-secret-value' }, isRoot: false, extraBinDirs: [] };
    const amp = await diagnoseAgent(findAgentCli('amp')!, world);
    expect(amp).toEqual({
      name: 'amp',
      displayName: 'Amp',
      found: true,
      path: join(bin, 'amp'),
      version: '0.0.1790000000-gabc',
      authEnv: ['AMP_API_KEY'],
      authFiles: [],
      auth: 'env AMP_API_KEY',
      install: "ringmaster doctor --install amp  (@ampcode/cli with npm, into Ringmaster's data directory)",
      notes: [],
    });
    const cursor = await diagnoseAgent(findAgentCli('cursor')!, world);
    expect(cursor).toMatchObject({ found: false, path: null, version: null, auth: 'none found: set CURSOR_API_KEY, or run `cursor-agent login`' });
    expect(cursor.install).toBe('curl https://cursor.com/install -fsS | bash');
    const codex = await diagnoseAgent(findAgentCli('codex')!, world);
    expect(codex.auth).toBe(`login/config in ${join(home, '.codex', 'auth.json')}`);
  });

  it('notes IS_SANDBOX for claude as root, and that an inherited value is replaced', async () => {
    const root = await diagnoseAgent(findAgentCli('claude')!, { env: { PATH: bin, HOME: home }, isRoot: true, extraBinDirs: [] });
    expect(root.notes).toEqual(['running as root: claude refuses --dangerously-skip-permissions unless IS_SANDBOX=1; ringmaster gives the agent IS_SANDBOX=1 in bypass mode']);
    const inherited = await diagnoseAgent(findAgentCli('claude')!, { env: { PATH: bin, HOME: home, IS_SANDBOX: 'yes' }, isRoot: true, extraBinDirs: [] });
    expect(inherited.notes).toEqual([
      "running as root: claude refuses --dangerously-skip-permissions unless IS_SANDBOX=1; ringmaster gives the agent IS_SANDBOX=1 in bypass mode (your IS_SANDBOX=yes is replaced in the agent's environment only)",
    ]);
    const user = await diagnoseAgent(findAgentCli('claude')!, { env: { PATH: bin, HOME: home }, isRoot: false, extraBinDirs: [] });
    expect(user.notes).toEqual([]);
  });

  it('prints a report and --json without secret values', async () => {
    const t = io({ PATH: bin, HOME: home, AMP_API_KEY: 'amp-secret-value' });
    expect(await main(['doctor', 'amp', 'cursor'], t.io)).toBe(0);
    expect(t.out()).toBe(
      [
        `amp     found    0.0.1790000000-gabc  ${join(bin, 'amp')}`,
        '        auth: env AMP_API_KEY',
        'cursor  missing  install: curl https://cursor.com/install -fsS | bash',
        '',
      ].join('\n'),
    );
    const j = io({ PATH: bin, HOME: home, AMP_API_KEY: 'amp-secret-value' });
    expect(await main(['doctor', '--json'], j.io)).toBe(0);
    expect(j.out()).not.toContain('amp-secret-value');
    const reports = JSON.parse(j.out()) as { name: string }[];
    expect(reports.map((r) => r.name)).toEqual(AGENT_CLIS.map((a) => a.name));
  });

  it('installs only with consent', async () => {
    const refused = io({ PATH: bin, HOME: home });
    expect(await main(['doctor', '--install', 'claude'], refused.io)).toBe(64);
    expect(refused.err()).toBe(
      "ringmaster doctor: installing @anthropic-ai/claude-code needs your consent: run 'ringmaster doctor --install claude --yes'\n",
    );

    const agents = join(home, '.local', 'share', 'ringmaster', 'agents');
    const declined = io({ PATH: bin, HOME: home }, true, 'n\n');
    expect(await main(['doctor', '--install', 'claude'], declined.io)).toBe(1);
    expect(declined.err()).toBe(`Install Claude Code (@anthropic-ai/claude-code) with npm into ${join(agents, 'claude')}? [y/N] Not installed.\n`);

    // Into the data directory, never globally (no -g).
    const accepted = io({ PATH: bin, HOME: home }, true, 'y\n');
    expect(await main(['doctor', '--install', 'claude'], accepted.io), accepted.err()).toBe(0);
    expect(await readFile(join(dir, 'npm-args'), 'utf8')).toBe(`install --prefix ${join(agents, 'claude')} --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code\n`);

    const yes = io({ PATH: bin, HOME: home });
    expect(await main(['doctor', '--install', 'codex', '--yes'], yes.io)).toBe(0);
    expect(yes.err()).toBe(`Running: npm install --prefix ${join(agents, 'codex')} @openai/codex\nInstalled Codex in ${join(agents, 'codex')}: 'ringmaster run' uses it.\n`);

    // What run uses: the installed copy counts as found.
    const report = await diagnoseAgent(findAgentCli('codex')!, { env: { PATH: bin, HOME: home }, isRoot: false, extraBinDirs: [], installedBinary: () => join(agents, 'codex', 'node_modules', '.bin', 'codex') });
    expect(report).toMatchObject({ found: true, path: join(agents, 'codex', 'node_modules', '.bin', 'codex'), version: '9.9.9' });
    const listed = io({ PATH: bin, HOME: home });
    expect(await main(['doctor', 'codex'], listed.io)).toBe(0);
    expect(listed.out()).toContain(`codex  found    9.9.9  ${join(agents, 'codex', 'node_modules', '.bin', 'codex')}`);

    const cursor = io({ PATH: bin, HOME: home });
    expect(await main(['doctor', '--install', 'cursor', '--yes'], cursor.io)).toBe(64);
    expect(cursor.err()).toContain('cursor is not installed from npm');
  });
});
