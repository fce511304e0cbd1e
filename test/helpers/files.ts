// Reading back what was written under a directory, for tests that check something never reached the disk.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file below `dir` (database, WAL, logs, pid files...), as latin1 text joined with newlines. */
export function everyFileText(dir: string): string {
  const parts: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else parts.push(readFileSync(path).toString('latin1'));
    }
  };
  walk(dir);
  return parts.join('\n');
}
