// Everything Ringmaster keeps is its user's only: the data directory and its directories 0700, every file 0600
// (database and its WAL, logs, pid files, locks, the disk reserve). Looser modes found are tightened; the owner's
// own bits are never added to (a data directory made read-only stays read-only).
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, planAgent, runCli, useWorkspace } from '../helpers/cli.js';
import { testHome, useFreshHome } from '../helpers/home.js';

const ws = useWorkspace('Work. When done, print <promise>COMPLETE</promise>.\n');
useFreshHome();

/** Every path under `dir` with its permission bits, relative. */
function modes(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const info = statSync(path);
      out.push([`${rel}${name}${info.isDirectory() ? '/' : ''}`, (info.mode & 0o777).toString(8)]);
      if (info.isDirectory()) walk(path, `${rel}${name}/`);
    }
  };
  walk(dir, '');
  return out;
}

describe('the data directory', () => {
  it('is 0700 with directories 0700 and files 0600, even when it existed with looser modes', async () => {
    mkdirSync(testHome(), { recursive: true });
    chmodSync(testHome(), 0o755);
    const r = await runCli(['run', '--agent-command', planAgent('ok,ok'), '--max-iterations', '2'], { cwd: ws.dir, env: cleanEnv() });
    expect(r.code).toBe(2);
    expect((statSync(testHome()).mode & 0o777).toString(8)).toBe('700');
    const all = modes(testHome());
    expect(all.map(([path]) => path)).toEqual(expect.arrayContaining(['ringmaster.db', 'disk-reserve', 'locks/', 'runs/']));
    expect(all.some(([path]) => /^runs\/\w+\/iteration-2\.log$/.test(path))).toBe(true);
    for (const [path, mode] of all) expect(`${path} ${mode}`).toBe(`${path} ${path.endsWith('/') ? '700' : '600'}`);
  });

  it('made read-only by its owner stays read-only when it is tightened', async () => {
    expect((await runCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '1'], { cwd: ws.dir, env: cleanEnv() })).code).toBe(2);
    chmodSync(testHome(), 0o555);
    try {
      // A history command opens the store (and tightens the directory) without writing.
      await runCli(['runs'], { cwd: ws.dir, env: cleanEnv() });
      expect((statSync(testHome()).mode & 0o777).toString(8)).toBe('500');
    } finally {
      chmodSync(testHome(), 0o700);
    }
  });
});
