// The `command` agent: any executable, prompt on stdin, plain-text output scanned as the agent's own text.
import type { AgentAdapter, Invocation, InvocationOptions, StreamParser } from './types.js';

/** Builds a `command` adapter around an argv list (the first element is the executable); `displayName` names it in lists. */
export function commandAdapter(argv: readonly string[], name = 'command', displayName?: string): AgentAdapter {
  const [command, ...args] = argv;
  return {
    name,
    displayName: displayName ?? (command === undefined ? 'command' : `command (${command})`),
    format: 'text',
    supportsResume: false,
    buildInvocation(options: InvocationOptions): Invocation {
      if (command === undefined || command === '') {
        throw new Error('the command agent needs agent.command (an argv list) or --agent-command');
      }
      return { command, args: [...args, ...options.extraArgs], env: { ...options.env }, stdin: options.prompt };
    },
    createParser(): StreamParser {
      return { line: (text) => [{ type: 'text', text }], end: () => [] };
    },
    classifyExit(exitCode, outputTail) {
      if (exitCode === 127 && /not found/i.test(outputTail)) {
        return { kind: 'missing_binary', message: outputTail.trim().split('\n').pop() ?? 'command not found' };
      }
      return null;
    },
  };
}

/** Quotes argv as one command line that splitCommandLine (or a POSIX shell) turns back into the same words. */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * Splits a command line into argv without a shell: whitespace separates words, single and double quotes
 * group them, backslash escapes the next character. Nothing is expanded or interpolated.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? '';
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) current += line[++i];
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in command: ${line}`);
  if (inWord) words.push(current);
  return words;
}
