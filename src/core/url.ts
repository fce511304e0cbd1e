// Database URLs in text a user sees: the password never appears.

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
