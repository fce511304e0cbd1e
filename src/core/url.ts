// URLs in text a user sees: a database password or a webhook's secret path never appears.

/** `url` with its password replaced by `***` (for messages, logs and `config show`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable database URL>';
  }
}

/**
 * A webhook URL as it may be shown: its scheme and host only (`https://hooks.slack.com/…`). The path, query and
 * credentials of a webhook are its secret (Slack's and Discord's tokens, an ntfy topic anyone could read).
 */
export function redactWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '<unparseable URL>';
  }
}
