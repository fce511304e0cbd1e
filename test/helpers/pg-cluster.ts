// A throwaway PostgreSQL cluster for tests and benches: Debian's server binaries (package `postgresql`),
// initdb in a temporary directory, one postmaster on a free loopback port (TCP only, password auth),
// removed afterwards. Used by vitest files (test/helpers/postgres.ts) and by bench scripts (plain Node 24
// imports this file directly, so it uses only erasable TypeScript and imports nothing of src/).
//
// Root: initdb and postgres refuse to run as root, so as root the server runs as the `postgres` system user
// that Debian's package creates (or, without it, a `ringmaster-pg` system user created here), through
// util-linux `setpriv`. The postmaster is started with a parent-death signal (SIGQUIT: immediate shutdown),
// so even a test process killed with SIGKILL leaves no server behind; its directory is swept by the next start.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A running (or stopped) throwaway cluster. */
export interface PgCluster {
  /** The temporary directory holding data/, the log and the password file. */
  readonly dir: string;
  /** Loopback TCP port of the server. */
  readonly port: number;
  /** PID of the postmaster while it runs, else null. */
  readonly pid: number | null;
  /** URL of `database` (default `postgres`) for the superuser `ringmaster`, password included. */
  url(database?: string): string;
  /** Creates a database (a fresh unique name when none is given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Drops a database, closing its connections first. */
  dropDatabase(name: string): Promise<void>;
  /** Stops the server (fast: clean shutdown; immediate: like a crash), keeping the data. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts the server again on the same port (after stop). */
  start(): Promise<void>;
  /** Stops the server and removes the directory. Safe to call twice. */
  destroy(): Promise<void>;
}

/** Where the server binaries come from. */
export interface PgClusterOptions {
  /** Directory with initdb and postgres; default $RINGMASTER_PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
  binDir?: string;
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
}

const SUPERUSER = 'ringmaster';
const DIR_PREFIX = 'ringmaster-pg-';

/** The newest Debian PostgreSQL server binaries, or a message saying how to install them. */
export function findPgBin(): string {
  const fromEnv = process.env.RINGMASTER_PG_BIN;
  if (fromEnv) return fromEnv;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error('PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin: apt-get install -y postgresql (or set RINGMASTER_PG_BIN)');
  }
  return join(base, versions[0], 'bin');
}

/** Initialises and starts a cluster in a new temporary directory. */
export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  sweepStaleDirs();
  const bin = options.binDir ?? findPgBin();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  try {
    const password = randomBytes(18).toString('base64url');
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (user) {
      chownSync(dir, user.uid, user.gid);
      chownSync(pwfile, user.uid, user.gid);
    }
    const init = spawnSync(
      'setpriv',
      [...dropTo(user), join(bin, 'initdb'), '-D', join(dir, 'data'), '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth=scram-sha-256',
        '--no-sync', '--encoding=UTF8', '--locale=C.UTF-8'],
      { encoding: 'utf8', env: serverEnv() },
    );
    if (init.status !== 0) throw new Error(`initdb failed (${init.status ?? init.signal ?? init.error?.message}): ${init.stderr}`);
    rmSync(pwfile);
    const cluster = new Cluster(bin, dir, user, password, options.settings ?? {});
    await cluster.startOnFreePort();
    return cluster;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

interface ServerUser {
  uid: number;
  gid: number;
}

/**
 * A cluster someone else runs (the test run's shared one), given its superuser URL: databases are created and
 * dropped on it; `destroy` drops the databases created through this handle and leaves the server running.
 * stop and start are refused: a file that needs them starts a cluster of its own.
 */
export function attachPgCluster(superuserUrl: string): PgCluster {
  const base = new URL(superuserUrl);
  const created = new Set<string>();
  let count = 0;
  const url = (database = 'postgres'): string => {
    const u = new URL(base);
    u.pathname = `/${database}`;
    return u.toString();
  };
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const refuse = (what: string) => (): Promise<void> =>
    Promise.reject(new Error(`pg cluster: cannot ${what} the shared cluster (use usePostgres({ own: true }))`));
  const drop = async (name: string): Promise<void> => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`dropDatabase: unsafe name ${name}`);
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    created.delete(name);
  };
  return {
    dir: '',
    port: Number(base.port),
    pid: null,
    url,
    async createDatabase(name?: string): Promise<string> {
      const db = name ?? `t${process.pid}_${++count}_${randomBytes(3).toString('hex')}`;
      if (!/^[a-z_][a-z0-9_]*$/.test(db)) throw new Error(`createDatabase: unsafe name ${db}`);
      await admin(`CREATE DATABASE ${db}`);
      created.add(db);
      return url(db);
    },
    dropDatabase: drop,
    stop: refuse('stop'),
    start: refuse('start'),
    async destroy(): Promise<void> {
      for (const name of [...created]) await drop(name).catch(() => undefined);
    },
  };
}

// No parameter properties: Node's type stripping (bench scripts) only accepts erasable syntax.
class Cluster implements PgCluster {
  readonly dir: string;
  port = 0;
  private readonly bin: string;
  private readonly user: ServerUser | null;
  private readonly password: string;
  private readonly settings: Record<string, string>;
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private databases = 0;

  constructor(bin: string, dir: string, user: ServerUser | null, password: string, settings: Record<string, string>) {
    this.bin = bin;
    this.dir = dir;
    this.user = user;
    this.password = password;
    this.settings = settings;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  url(database = 'postgres'): string {
    return `postgres://${SUPERUSER}:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}/${database}`;
  }

  async createDatabase(name?: string): Promise<string> {
    const db = name ?? `t${process.pid}_${++this.databases}_${randomBytes(3).toString('hex')}`;
    if (!/^[a-z_][a-z0-9_]*$/.test(db)) throw new Error(`createDatabase: unsafe name ${db}`);
    await this.admin(`CREATE DATABASE ${db}`);
    return this.url(db);
  }

  async dropDatabase(name: string): Promise<void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`dropDatabase: unsafe name ${name}`);
    await this.admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }

  async startOnFreePort(): Promise<void> {
    // Another process may take the port between our probe and the server's bind: try a few.
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      try {
        await this.start();
        return;
      } catch (error) {
        if (attempt >= 5 || !/could not bind|Address already in use/i.test(String(error))) throw error;
      }
    }
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('pg cluster: already running');
    const log = openSync(join(this.dir, 'postgres.log'), 'a');
    const settings: Record<string, string> = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      // Speed without losing commits to a server crash (stop('immediate')): no fsync (only an OS crash
      // would lose data), but synchronous_commit stays on so a killed server recovers every commit.
      fsync: 'off',
      full_page_writes: 'off',
      max_connections: '300',
      shared_buffers: '32MB',
      ...this.settings,
    };
    const args = ['-D', join(this.dir, 'data'), '-p', String(this.port)];
    for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
    const child = spawn('setpriv', [...dropTo(this.user), '--pdeathsig', 'SIGQUIT', join(this.bin, 'postgres'), ...args], {
      stdio: ['ignore', log, log],
      env: serverEnv(),
    });
    closeSync(log);
    this.child = child;
    const exit: { info: string | null } = { info: null };
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        exit.info = `exited with ${code ?? signal}`;
        if (this.child === child) this.child = null;
        resolve();
      });
      child.once('error', (error) => {
        exit.info = `could not start: ${error.message}`;
        if (this.child === child) this.child = null;
        resolve();
      });
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exit.info !== null) throw new Error(`postgres ${exit.info}: ${this.logTail()}`);
      if (await this.accepts()) return;
      if (Date.now() > deadline) {
        await this.stop('immediate');
        throw new Error(`postgres did not accept connections within 30 s: ${this.logTail()}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  async destroy(): Promise<void> {
    await this.stop('immediate');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async accepts(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async admin(sql: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  private logTail(): string {
    try {
      return readFileSync(join(this.dir, 'postgres.log'), 'utf8').slice(-2000);
    } catch {
      return '(no log)';
    }
  }
}

/** setpriv arguments that drop root to the server user (none when not root). */
function dropTo(user: ServerUser | null): string[] {
  return user ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups'] : [];
}

/** The user the server runs as when we are root: `postgres` (Debian's), else a created `ringmaster-pg`. */
function serverUser(): ServerUser | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'ringmaster-pg']) {
    const found = lookupUser(name);
    if (found) return found;
  }
  const created = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'ringmaster-pg'], { encoding: 'utf8' });
  const user = lookupUser('ringmaster-pg');
  if (!user) throw new Error(`running as root and no 'postgres' user; useradd ringmaster-pg failed: ${created.stderr}`);
  return user;
}

function lookupUser(name: string): ServerUser | null {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** A minimal environment for initdb/postgres: no PG* variables of the caller leak in. */
function serverEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC' };
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Removes directories of earlier clusters whose process is gone (a test process killed with SIGKILL). */
function sweepStaleDirs(): void {
  for (const name of readdirSync(tmpdir())) {
    const match = new RegExp(`^${DIR_PREFIX}(\\d+)-`).exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
