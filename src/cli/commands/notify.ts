// `ringmaster notify test`: sends a sample notification to every configured target (the webhooks of the user config
// and RINGMASTER_NOTIFY_WEBHOOKS, notify.command of the workspace) and prints what each answered.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../../core/errors.js';
import { loadConfig } from '../../config/load.js';
import { notifySettings } from '../../spec/resolve.js';
import { DEFAULT_POLICY, deliver } from '../../notify/deliver.js';
import { runUrl } from '../../notify/notifier.js';
import type { Notification } from '../../notify/payload.js';
import { commandTarget, webhookTarget, type Target } from '../../notify/targets.js';
import type { CliIO, Command } from '../command.js';

async function notify(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'test') throw new UsageError(`expected 'notify test', got ${sub === undefined ? 'nothing' : `'notify ${sub}'`}`);
  const { values, positionals } = parseArgs({ args: rest, options: { cwd: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (see 'ringmaster notify --help')`);
  const workspace = resolve(io.cwd, values.cwd ?? '.');
  const config = loadConfig(workspace, io.env);
  const { notify } = config.settings;
  const targets: Target[] = [...notify.webhooks.map(webhookTarget), ...(notify.command === null ? [] : [commandTarget(notify.command, workspace)])];
  if (targets.length === 0) {
    io.stderr.write('no notification targets: set notify.webhooks (user config or RINGMASTER_NOTIFY_WEBHOOKS) or notify.command (see README.md#notifications)\n');
    return EXIT.usage;
  }
  const sample: Notification = {
    event: 'completed',
    run_id: 'notify-test',
    title: 'ringmaster notify test',
    workspace,
    reason: 'success_signal (a sample sent by ringmaster notify test)',
    iterations: 3,
    cost_usd: 0.42,
    cost_unknown: false,
    url: runUrl(notifySettings(config).publicUrl, 'notify-test'),
    time: new Date().toISOString(),
  };
  // One try each: the answer is what the person running this wants to see, now.
  const policy = { ...DEFAULT_POLICY, attempts: 1 };
  const results = await Promise.all(targets.map(async (target) => ({ target: target.name, ...(await deliver(target, sample, policy, new AbortController().signal)) })));
  if (values.json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else for (const r of results) io.stdout.write(`${r.target}: ${r.status === 'delivered' ? `delivered (${r.answer ?? 'ok'})` : `failed: ${r.reason ?? 'unknown'}`}\n`);
  return results.every((r) => r.status === 'delivered') ? EXIT.success : EXIT.failure;
}

/** The `notify` command. */
export const notifyCommand: Command = {
  name: 'notify',
  usage: `Usage: ringmaster notify test [--cwd DIR] [--json]

test    Sends a sample notification (event 'completed') to every configured target: the webhooks of
        notify.webhooks (user config or RINGMASTER_NOTIFY_WEBHOOKS) and notify.command (any config file),
        one try each, and prints what each answered. Exit 0 when every target took it, 1 when one did not,
        64 when none is configured.
`,
  run: notify,
};
