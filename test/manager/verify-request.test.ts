// The API's run body takes the verify gate (`verify`, `verify_timeout`, `verify_each`) and `no_progress_after` into the run's spec
// as `ringmaster run` does, with the CLI's messages for bad values.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveNewRun } from '../../src/manager/new-run.js';
import { runRequestSchema } from '../../src/manager/run-request.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = tempDir();
  writeFileSync(join(ws.dir, 'PROMPT.md'), 'Work.\n');
});
afterEach(() => ws.cleanup());

it('puts verify, verify_timeout (a duration or seconds) and verify_each into the spec', () => {
  const request = runRequestSchema.parse({ workspace: ws.dir, verify: "npm test -- --grep 'a b'", verify_timeout: 90, verify_each: true });
  expect(resolveNewRun(request, cleanEnv()).spec.verify).toEqual({ command: "npm test -- --grep 'a b'", timeoutMs: 90_000, each: true });
  expect(resolveNewRun(runRequestSchema.parse({ workspace: ws.dir, verify: 'make check' }), cleanEnv()).spec.verify).toEqual({ command: 'make check', timeoutMs: 600_000, each: false });
  expect(resolveNewRun(runRequestSchema.parse({ workspace: ws.dir }), cleanEnv()).spec.verify).toBeNull();
});

it("refuses a bad timeout with the CLI's message", () => {
  expect(() => resolveNewRun(runRequestSchema.parse({ workspace: ws.dir, verify: 'x', verify_timeout: 'soon' }), cleanEnv())).toThrow(
    'flag verify_timeout: loop.verify_timeout: expected a duration like 90s, 5m or 4h, got "soon"',
  );
});

it('puts no_progress_after into the spec (0 = off), and refuses it without change tracking', () => {
  expect(resolveNewRun(runRequestSchema.parse({ workspace: ws.dir, no_progress_after: 4 }), cleanEnv()).spec.noProgressAfter).toBe(4);
  expect(resolveNewRun(runRequestSchema.parse({ workspace: ws.dir }), cleanEnv()).spec.noProgressAfter).toBe(0);
  expect(resolveNewRun(runRequestSchema.parse({ workspace: ws.dir }), cleanEnv({ RINGMASTER_LOOP_NO_PROGRESS_AFTER: '5' })).spec.noProgressAfter).toBe(5);
  expect(() => resolveNewRun(runRequestSchema.parse({ workspace: ws.dir, no_progress_after: 2 }), cleanEnv({ RINGMASTER_LOOP_TRACK_CHANGES: 'false' }))).toThrow(
    'loop.no_progress_after (flag no_progress_after) counts the files each iteration changed: it needs loop.track_changes, which is off',
  );
});
