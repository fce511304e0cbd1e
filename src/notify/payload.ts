// What a notification says: one JSON object (the `json` webhook body and notify.command's stdin) and its
// Slack, Discord and ntfy renderings. Pure.
import type { NotifyEvent } from '../core/notify-events.js';
import type { WebhookFormat } from './targets.js';

/** A notification: the generic body (README.md#notifications). */
export interface Notification {
  event: NotifyEvent;
  run_id: string;
  title: string;
  workspace: string;
  /** Why: the stop reason (and a failure's message), or what the run waits for and until when. */
  reason: string;
  iterations: number;
  /** What the run spent: a lower bound when cost_unknown. */
  cost_usd: number;
  /** Some iteration's cost is not known (an agent that reports none): cost_usd is then at least what was spent. */
  cost_unknown: boolean;
  /** The run in the dashboard. */
  url: string;
  /** When it happened (ISO 8601). */
  time: string;
}

/** An HTTP request body with its content type and extra headers. */
export interface WebhookRequest {
  body: string;
  headers: Record<string, string>;
}

const HEADLINE: Record<NotifyEvent, string> = {
  completed: 'completed',
  failed: 'failed',
  stopped: 'stopped',
  limit: 'reached a limit',
  waiting: 'is waiting',
  no_progress: 'made no progress',
  budget: 'reached a budget threshold',
};

const NTFY_TAGS: Record<NotifyEvent, string> = {
  completed: 'white_check_mark',
  failed: 'x',
  stopped: 'stop_sign',
  limit: 'warning',
  waiting: 'hourglass',
  no_progress: 'zzz',
  budget: 'moneybag',
};

/** "Ringmaster: fix-tests completed" */
export function notificationTitle(n: Notification): string {
  return `Ringmaster: ${n.title} ${HEADLINE[n.event]}`;
}

/** One paragraph for a person: what happened, why, how far the run got, and the link. */
export function notificationText(n: Notification): string {
  const plural = n.iterations === 1 ? '' : 's';
  return `Run ${n.run_id} (${n.title}) ${HEADLINE[n.event]}: ${n.reason}. ${n.iterations} iteration${plural}, ${costText(n)}. Workspace ${n.workspace}. ${n.url}`;
}

/** "$0.50"; an unknown cost is never shown as $0: "cost unknown", or ">= $0.50" when part of it is known. */
function costText(n: Notification): string {
  if (!n.cost_unknown) return `$${n.cost_usd.toFixed(2)}`;
  return n.cost_usd === 0 ? 'cost unknown' : `>= $${n.cost_usd.toFixed(2)}`;
}

/** The request a webhook of `format` is sent. */
export function webhookRequest(n: Notification, format: WebhookFormat): WebhookRequest {
  const json = { 'content-type': 'application/json' };
  switch (format) {
    case 'slack':
      return { body: JSON.stringify({ text: `*${notificationTitle(n)}*\n${notificationText(n)}` }), headers: json };
    case 'discord':
      return { body: JSON.stringify({ content: `**${notificationTitle(n)}**\n${notificationText(n)}` }), headers: json };
    case 'ntfy':
      // ntfy publishes a plain-text body to the topic URL; title, tags and the click link go in headers.
      return {
        body: notificationText(n),
        headers: { 'content-type': 'text/plain; charset=utf-8', title: headerValue(notificationTitle(n)), tags: NTFY_TAGS[n.event], click: n.url },
      };
    case 'json':
      return { body: JSON.stringify(n), headers: json };
  }
}

/** A header value: ASCII as is, anything else as an RFC 2047 encoded word (ntfy decodes them). */
function headerValue(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}
