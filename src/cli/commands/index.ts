// The list of subcommands, in the order `ringmaster --help` shows them. Add one line per command.
import type { Command } from '../command.js';
import { configCommand } from './config.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { runCommand } from './run.js';
import { resumeCommand } from './resume.js';
import { stopCommand } from './stop.js';
import { hookCliCommand } from './hook.js';
import { loopCliCommand } from './loop.js';
import { runsCommand } from './runs.js';
import { showCommand } from './show.js';
import { logsCommand } from './logs.js';
import { statsCommand } from './stats.js';
import { rollbackCliCommand } from './rollback.js';

/** Every `ringmaster` subcommand. */
export const COMMANDS: readonly Command[] = [runCommand, demoCommand, configCommand, runsCommand, showCommand, logsCommand, statsCommand, rollbackCliCommand, resumeCommand, stopCommand, loopCliCommand, hookCliCommand, doctorCommand];
