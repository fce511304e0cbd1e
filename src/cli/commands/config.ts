// `ringmaster config show`: every resolved setting and where its value came from; `config schema`: the JSON Schema.
import { UsageError, EXIT } from '../../core/errors.js';
import { resolveRun } from '../../spec/resolve.js';
import { globalConfigPath, sourced } from '../../config/load.js';
import { configJsonSchema, formatSetting, SETTINGS } from '../../config/settings.js';
import type { CliIO, Command } from '../command.js';
import { parseRunArgs, runFlagsFrom, workspaceFrom } from './run.js';

function show(rest: string[], io: CliIO): number {
  const { values } = parseRunArgs(rest);
  const workspace = workspaceFrom(values, io);
  const { config: loaded, maxIterations, spec } = resolveRun(workspace, io.env, runFlagsFrom(values), { check: false });
  const rows: Array<{ key: string; value: string; source: string }> = [];
  rows.push({ key: 'max_iterations', value: maxIterations.value === null ? 'unlimited' : String(maxIterations.value), source: maxIterations.source });
  for (const setting of SETTINGS) {
    const { value, source } = sourced(loaded, setting);
    rows.push({ key: setting.key, value: formatSetting(setting.key, value), source });
  }
  if (values.json) {
    const out = {
      workspace,
      files: loaded.files,
      global_config: globalConfigPath(io.env),
      prompt: spec.label,
      settings: Object.fromEntries(rows.map((r) => [r.key, { value: r.value, source: r.source }])),
      procedures: Object.fromEntries([...loaded.procedures].map(([n, p]) => [n, { ...p }])),
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT.success;
  }
  io.stdout.write(`workspace: ${workspace}\n`);
  io.stdout.write(`config files: ${loaded.files.length ? loaded.files.join(', ') : `none (global: ${globalConfigPath(io.env)}, workspace: ringmaster.yml)`}\n`);
  io.stdout.write(`prompt: ${spec.label}\n\n`);
  const kw = Math.max(...rows.map((r) => r.key.length));
  const vw = Math.max(...rows.map((r) => r.value.length));
  for (const r of rows) io.stdout.write(`${r.key.padEnd(kw)}  ${r.value.padEnd(vw)}  (${r.source})\n`);
  return EXIT.success;
}

function schema(rest: string[], io: CliIO): number {
  if (rest.length > 0) throw new UsageError(`'config schema' takes no arguments, got '${rest[0]}'`);
  io.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  return EXIT.success;
}

function config(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'show') return Promise.resolve(show(rest, io));
  if (sub === 'schema') return Promise.resolve(schema(rest, io));
  throw new UsageError(`expected 'config show' or 'config schema', got ${sub === undefined ? 'nothing' : `'config ${sub}'`}`);
}

/** The `config` command. */
export const configCommand: Command = {
  name: 'config',
  usage: `Usage: ringmaster config show [run options] [--json]
       ringmaster config schema

show    Prints every setting as 'ringmaster run' with the same options would use it, and its source:
        flag > env (RINGMASTER_*) > workspace ringmaster.yml > global $XDG_CONFIG_HOME/ringmaster/config.yml > built-in.
schema  Prints the JSON Schema of ringmaster.yml (and of the global config.yml), for editor completion:
        ringmaster config schema > .ringmaster.schema.json, then in ringmaster.yml:
        # yaml-language-server: $schema=./.ringmaster.schema.json
`,
  run: config,
};
