// Where notifications go: the webhooks of the process that drives the run (its user config and environment: their
// URLs are secrets, never stored with a run) and the run's notify.command. Each has a name safe to show.
import { basename } from 'node:path';
import { loadConfig } from '../config/load.js';
import { localServerUrl, notifySettings } from '../spec/resolve.js';
import type { Webhook } from '../config/value-schemas.js';
import { redactWebhookUrl } from '../core/url.js';

export type { Webhook } from '../config/value-schemas.js';

/** How a webhook's body is shaped. */
export type WebhookFormat = Webhook['format'];

/** One place a notification is delivered to. `name` is what events and messages show (never a webhook's secret). */
export type Target = { kind: 'webhook'; name: string; webhook: Webhook } | { kind: 'command'; name: string; argv: string[]; cwd: string };

/** A webhook as a target: named by its format and host. */
export function webhookTarget(webhook: Webhook): Target {
  return { kind: 'webhook', name: `${webhook.format} ${redactWebhookUrl(webhook.url)}`, webhook };
}

/** notify.command as a target, run in `cwd`. */
export function commandTarget(argv: string[], cwd: string): Target {
  return { kind: 'command', name: `command ${basename(argv[0] ?? '')}`, argv, cwd };
}

/**
 * The webhooks of this process: notify.webhooks of the user config and RINGMASTER_NOTIFY_WEBHOOKS (never a
 * workspace's ringmaster.yml). A configuration that cannot be read gives none and says why.
 */
export function processWebhooks(env: Readonly<Record<string, string | undefined>>): { webhooks: Webhook[]; publicUrl: string; problem: string | null } {
  try {
    // Only the variables of notify.* and server.* matter here (another RINGMASTER_* one was judged where the run started).
    const relevant = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('RINGMASTER_') || /^RINGMASTER_(NOTIFY|SERVER)_/.test(name)));
    const config = loadConfig(null, relevant);
    return { webhooks: config.settings.notify.webhooks, publicUrl: notifySettings(config).publicUrl, problem: null };
  } catch (error) {
    return { webhooks: [], publicUrl: localServerUrl('127.0.0.1', 7420), problem: error instanceof Error ? error.message : String(error) };
  }
}
