// The test harness's throwaway PostgreSQL cluster leaves nothing behind: not after destroy(), and not
// when the process that started it is killed with SIGKILL (parent-death signal + sweep on next start).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { ROOT } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

/** True while `pid` runs (a zombie waiting for its reaper counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

describe('throwaway PostgreSQL cluster', () => {
  it('runs a server on loopback that destroy() stops and removes', async () => {
    const cluster = await startPgCluster();
    const pid = cluster.pid;
    expect(pid).not.toBeNull();
    expect(cluster.url()).toMatch(/^postgres:\/\/ringmaster:[^@]+@127\.0\.0\.1:\d+\/postgres$/);
    expect(existsSync(join(cluster.dir, 'data', 'PG_VERSION'))).toBe(true);
    await cluster.destroy();
    expect(running(pid!)).toBe(false);
    expect(existsSync(cluster.dir)).toBe(false);
    await cluster.destroy();
  });

  it('leaves no server behind when its test process is killed with SIGKILL, and the next start sweeps its directory', async () => {
    const script = `import { startPgCluster } from ${JSON.stringify(join(ROOT, 'test', 'helpers', 'pg-cluster.ts'))};
      const c = await startPgCluster(); console.log(JSON.stringify({ pid: c.pid, dir: c.dir })); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`the child exited early (${code})`)));
    });
    const { pid, dir } = JSON.parse(line) as { pid: number; dir: string };
    expect(running(pid)).toBe(true);
    child.kill('SIGKILL');
    await until('the orphaned postmaster to exit', () => !running(pid));
    expect(existsSync(dir)).toBe(true);
    const next = await startPgCluster();
    try {
      expect(existsSync(dir)).toBe(false);
    } finally {
      await next.destroy();
    }
  });
});
