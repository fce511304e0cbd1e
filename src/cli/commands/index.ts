// The list of subcommands, in the order `ringmaster --help` shows them. Add one line per command.
import type { Command } from '../command.js';

/** Every `ringmaster` subcommand. */
export const COMMANDS: readonly Command[] = [];
