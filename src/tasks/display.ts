// How commands are shown in messages (display only: they are never run through a shell).

/** Quotes an argv list for display, shell-style. */
export function displayArgv(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
