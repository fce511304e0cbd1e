// `ringmaster doctor`: which agent CLIs are installed, their versions and credentials (names only), and
// `--install NAME` to install a missing one from npm into Ringmaster's data directory (never globally), only with
// the user's consent (--yes or a y/N on a TTY).
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { AGENT_CLIS, PACKAGE_BIN_DIR, diagnoseAgents, findAgentCli, findBinary, type AgentCli, type AgentReport } from '../../agents/doctor.js';
import { EXIT, UsageError, UserError } from '../../core/errors.js';
import { agentInstallDir, ensureAgentClis, installedAgentBinary } from '../../runner/agent-install.js';
import { dataDir } from '../../store/paths.js';
import { sandboxSupport, type SandboxSupport } from '../../sandbox/probe.js';
import type { CliIO, Command } from '../command.js';
import { flagProblem } from '../flag-problem.js';

function render(reports: readonly AgentReport[]): string {
  const width = Math.max(...reports.map((r) => r.name.length));
  const lines: string[] = [];
  for (const r of reports) {
    if (r.found) {
      lines.push(`${r.name.padEnd(width)}  found    ${r.version ?? '(version unknown)'}  ${r.path ?? ''}`);
      lines.push(`${' '.repeat(width)}  auth: ${r.auth}`);
    } else {
      lines.push(`${r.name.padEnd(width)}  missing  install: ${r.install}`);
    }
    for (const note of r.notes) lines.push(`${' '.repeat(width)}  note: ${note}`);
  }
  return `${lines.join('\n')}\n`;
}

function ask(io: CliIO, question: string): Promise<string> {
  io.stderr.write(question);
  const rl = createInterface({ input: io.stdin });
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line.trim());
    });
    rl.once('close', () => {
      if (!answered) resolve('');
    });
  });
}

async function install(cli: AgentCli, yes: boolean, io: CliIO): Promise<number> {
  if (cli.npmPackage === null) {
    throw new UsageError(`${cli.name} is not installed from npm; install it by hand: ${cli.installHint}`);
  }
  const onPath = findBinary(cli.binary, io.env, []);
  if (onPath !== null) {
    io.stderr.write(`${cli.displayName} is already on PATH: ${onPath}\n`);
    return EXIT.success;
  }
  const home = dataDir(io.env);
  const dir = agentInstallDir(home, cli.name);
  const interactive = (io.stdin as { isTTY?: boolean }).isTTY === true && io.stderr.isTTY === true;
  if (!yes) {
    if (!interactive) {
      throw new UsageError(`installing ${cli.npmPackage} needs your consent: run 'ringmaster doctor --install ${cli.name} --yes'`);
    }
    const answer = await ask(io, `Install ${cli.displayName} (${cli.npmPackage}) with npm into ${dir}? [y/N] `);
    if (!/^y(es)?$/i.test(answer)) {
      io.stderr.write('Not installed.\n');
      return EXIT.failure;
    }
  }
  // Into the data directory, never globally: the copy every run uses when the agent is not on PATH.
  try {
    await ensureAgentClis([cli.name], true, home, io.env, (notice) => {
      io.stderr.write(notice.phase === 'installing' ? `Running: npm install --prefix ${notice.dir} ${notice.package}\n` : '');
    });
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    io.stderr.write(`ringmaster doctor: ${error.message}\n`);
    return EXIT.failure;
  }
  io.stderr.write(`Installed ${cli.displayName} in ${dir}: 'ringmaster run' uses it.\n`);
  return EXIT.success;
}

/** The sandbox's lines of `doctor`: whether --sandbox works here, why not and how to fix it, and the caps. */
export function renderSandbox(s: SandboxSupport): string {
  const lines = s.ok
    ? [`sandbox  works    ${s.version ?? 'bubblewrap'} (recommended: ringmaster run --sandbox, or sandbox.enabled: true)`]
    : [`sandbox  unavailable  ${s.problem ?? ''}`, `         fix: ${s.fix ?? ''}`];
  lines.push(`         caps: ${s.caps.ok ? 'sandbox.memory and sandbox.pids supported (cgroup v2)' : `sandbox.memory / sandbox.pids unsupported: ${s.caps.problem ?? ''}`}`);
  return `${lines.join('\n')}\n`;
}

async function doctor(args: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, install: { type: 'string' }, yes: { type: 'boolean', short: 'y' } },
    });
  } catch (error) {
    throw new UsageError(flagProblem(error));
  }
  const { values, positionals } = parsed;
  if (values.install !== undefined) {
    const cli = findAgentCli(values.install);
    if (!cli) throw new UsageError(`unknown agent '${values.install}' (known: ${AGENT_CLIS.map((a) => a.name).join(', ')})`);
    return install(cli, values.yes === true, io);
  }
  if (positionals.length === 1 && positionals[0] === 'sandbox') {
    const support = sandboxSupport();
    io.stdout.write(values.json === true ? `${JSON.stringify(support, null, 2)}\n` : renderSandbox(support));
    return EXIT.success;
  }
  const clis = positionals.length === 0 ? AGENT_CLIS : positionals.map((name) => {
    const cli = findAgentCli(name);
    if (!cli) throw new UsageError(`unknown agent '${name}' (known: ${AGENT_CLIS.map((a) => a.name).join(', ')})`);
    return cli;
  });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const home = dataDir(io.env);
  const reports = await diagnoseAgents(clis, { env: io.env, isRoot, extraBinDirs: [PACKAGE_BIN_DIR], installedBinary: (name) => installedAgentBinary(home, name) });
  io.stdout.write(values.json === true ? `${JSON.stringify(reports, null, 2)}\n` : render(reports));
  if (values.json !== true && positionals.length === 0) io.stdout.write(`\n${renderSandbox(sandboxSupport())}`);
  return EXIT.success;
}

/** The `doctor` command. */
export const doctorCommand: Command = {
  name: 'doctor',
  usage: `Usage: ringmaster doctor [AGENT...] [--json]
       ringmaster doctor sandbox [--json]
       ringmaster doctor --install AGENT [--yes]

For each agent CLI (${AGENT_CLIS.map((a) => a.name).join(', ')}): found or missing where 'ringmaster run'
looks (PATH, then the copy 'doctor --install' or agent.auto_install put in Ringmaster's data directory; a copy
only in this package's node_modules/.bin is noted, not counted), its version, and the credentials it would use (environment variable
names and login files; values are never printed). As root it notes that claude needs IS_SANDBOX=1 for
--dangerously-skip-permissions, which Ringmaster gives the agent in bypass mode whatever it inherited.

Then whether 'run --sandbox' works on this machine (bubblewrap, user namespaces, AppArmor, macOS), how to make it
work if not, and whether sandbox.memory / sandbox.pids can be enforced (cgroup v2). 'doctor sandbox' prints only
that ('--json': { ok, version, problem, fix, caps }).

--install AGENT  installs the agent's npm package into Ringmaster's data directory (agents/AGENT, never
                 globally: every run uses it when the agent is not on PATH) after asking y/N on a
                 terminal; without a terminal it refuses unless --yes is given.
--json           prints an array of reports.
`,
  run: doctor,
};
