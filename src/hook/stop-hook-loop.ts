// The imperative shell of `ringmaster hook stop` in a project with a loop: lock, read the tracker, decide, write
// back, record. Fails open. Loaded only when the project has a tracker (stop-hook.ts).
import { continuationWithNotes } from './hook-notes.js';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decideStop, hasPromise } from '../core/hook-decision.js';
import { appendDecision, type HookDecisionRecord } from './decision-log.js';
import { hasStore, recordInStore, type StoreEnv } from './store-record.js';
import { withFileLock } from './file-lock.js';
import type { StopHookInput } from './hook-input.js';
import { readCurrentTurnText } from './transcript.js';
import { continueMessage, loopStateOf, readTracker, RINGMASTER_DIR, trackerPath, writeTracker } from './tracker.js';
import { plainStopHookInput, projectDirOf, type LockedOutcome, type StopHookContext, type StopHookOutcome } from './stop-hook-context.js';

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The event: by the hand check when it plainly passes the schema, else through the schema (which says what is wrong). */
async function parseInput(text: string): Promise<StopHookInput> {
  try {
    const plain = plainStopHookInput(JSON.parse(text));
    if (plain !== null) return plain;
  } catch {
    // Not JSON: the schema's module says so in its words.
  }
  const { parseStopHookInput } = await import('./hook-input.js');
  return parseStopHookInput(text);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function record(projectDir: string, rec: HookDecisionRecord): Promise<string | null> {
  if (!(await exists(join(projectDir, RINGMASTER_DIR)))) return null;
  try {
    await appendDecision(projectDir, rec);
    return null;
  } catch (error) {
    return `cannot record the decision: ${message(error)}`;
  }
}

/** Records in the store when the loop has a run there; any store error falls back to the log file. */
async function recordDecision(env: StoreEnv, projectDir: string, rec: HookDecisionRecord, outcome: LockedOutcome, nowMs: number): Promise<string | null> {
  if (outcome.runId !== null && hasStore(env)) {
    const d = outcome.decision;
    try {
      await recordInStore(env, {
        runId: outcome.runId,
        record: rec,
        blockNumber: d.kind === 'block' ? d.iteration : null,
        stopReason: d.kind === 'allow' ? d.stopReason : null,
        turnNumber: outcome.blocksBefore + 1,
        verify: outcome.verify,
        now: nowMs,
      });
      return null;
    } catch (error) {
      const warning = `cannot record the decision in the store: ${message(error)}`;
      const logWarning = await record(projectDir, { ...rec, warning: [rec.warning, warning].filter((w) => w !== null).join('; ') });
      return [warning, logWarning].filter((w) => w !== null).join('; ');
    }
  }
  return record(projectDir, rec);
}

async function assistantTextOf(input: StopHookInput, marker: string): Promise<{ text: string; warning: string | null }> {
  const last = input.last_assistant_message ?? '';
  if (hasPromise(last, marker) || !input.transcript_path) return { text: last, warning: null };
  try {
    const turn = await readCurrentTurnText(input.transcript_path);
    return { text: `${last}\n${turn}`, warning: null };
  } catch (error) {
    return { text: last, warning: `cannot read the transcript: ${message(error)}` };
  }
}

async function decideLocked(input: StopHookInput, projectDir: string, ctx: StopHookContext): Promise<LockedOutcome> {
  const tracker = await readTracker(projectDir);
  if (tracker === null) {
    const decision = decideStop(null, toEvent(input, ''));
    return { decision, stdout: '', reason: 'no_loop', iteration: null, maxIterations: null, warning: null, runId: null, blocksBefore: 0, pending: null, verify: null };
  }
  const f = tracker.frontmatter;
  const needsText = f.active && (f.session_id === null || f.session_id === input.session_id);
  const { text, warning } = needsText ? await assistantTextOf(input, f.completion_marker) : { text: '', warning: null };
  const decision = decideStop(loopStateOf(tracker), toEvent(input, text));
  const now = ctx.now().toISOString();
  const runId = f.active && typeof f.run_id === 'string' ? f.run_id : null;
  const unsettled = { pending: null, verify: null } as const;
  if (decision.kind === 'allow' && decision.stopReason === 'success_signal' && f.verify !== null) {
    // A claim with a check: the tracker stays as it is until the check has run (outside the lock).
    const pending = { command: f.verify, timeoutMs: f.verify_timeout_ms, iteration: f.iteration, claim: decision.reason };
    return { decision, stdout: '', reason: decision.reason, iteration: f.iteration, maxIterations: f.max_iterations, warning, runId, blocksBefore: f.iteration, pending, verify: null };
  }
  if (decision.kind === 'block') {
    const next = {
      frontmatter: { ...f, iteration: decision.iteration, session_id: decision.sessionId },
      body: tracker.body,
    };
    await writeTracker(projectDir, next);
    const noted = await continuationWithNotes(ctx.env, runId, decision.iteration, continueMessage(next, trackerPath(projectDir)), ctx.now().getTime());
    return {
      decision,
      stdout: `${JSON.stringify({ decision: 'block', reason: noted.reason })}\n`,
      reason: 'continue',
      iteration: decision.iteration,
      maxIterations: f.max_iterations,
      warning: [warning, noted.warning].filter((w) => w !== null).join('; ') || null,
      runId,
      blocksBefore: f.iteration,
      ...unsettled,
    };
  }
  if (decision.stopReason !== null) {
    await writeTracker(projectDir, {
      frontmatter: { ...f, active: false, session_id: f.session_id ?? input.session_id, ended_at: now, stop_reason: decision.stopReason },
      body: tracker.body,
    });
  }
  return { decision, stdout: '', reason: decision.reason, iteration: f.iteration, maxIterations: f.max_iterations, warning, runId, blocksBefore: f.iteration, ...unsettled };
}

function toEvent(input: StopHookInput, assistantText: string): { sessionId: string; stopHookActive: boolean; assistantText: string } {
  return { sessionId: input.session_id, stopHookActive: input.stop_hook_active, assistantText };
}

/** Handles one Stop event given as stdin text (the project may have a loop). Never throws: any error allows the stop with a warning. */
export async function runLoopStopHook(stdinText: string, ctx: StopHookContext): Promise<StopHookOutcome> {
  let input: StopHookInput | null = null;
  let projectDir = projectDirOf(null, ctx);
  const base = { time: ctx.now().toISOString(), session_id: null, stop_hook_active: null } as const;
  try {
    input = await parseInput(stdinText);
    projectDir = projectDirOf(input, ctx);
    if (!(await exists(trackerPath(projectDir)))) return { stdout: '', decision: 'allow', reason: 'no_loop', warning: null };
    const current = input;
    let outcome = await withFileLock(trackerPath(projectDir), () => decideLocked(current, projectDir, ctx), ctx.lock);
    const pending = outcome.pending;
    if (pending !== null) {
      // Loaded only for a claim with a check: the check's runner is not on the path of every other turn.
      const { runHookVerify, settleClaim } = await import('./stop-verify.js');
      const run = await runHookVerify(projectDir, pending, ctx);
      const claimWarning = outcome.warning;
      outcome = await withFileLock(trackerPath(projectDir), () => settleClaim(projectDir, current.session_id, pending, run, ctx), ctx.lock);
      outcome = { ...outcome, warning: claimWarning };
    }
    const reason = outcome.reason;
    const logWarning =
      outcome.decision.kind === 'allow' && outcome.decision.reason === 'no_loop'
        ? null
        : await recordDecision(
            ctx.env,
            projectDir,
            {
              ...base,
            session_id: input.session_id,
            stop_hook_active: input.stop_hook_active,
            decision: outcome.decision.kind,
            reason,
            iteration: outcome.iteration,
              max_iterations: outcome.maxIterations,
              warning: outcome.warning,
              ...(outcome.verify !== null ? { verify: outcome.verify } : {}),
            },
            outcome,
            ctx.now().getTime(),
          );
    const warning = [outcome.warning, logWarning].filter((w) => w !== null).join('; ') || null;
    return { stdout: outcome.stdout, decision: outcome.decision.kind, reason, warning };
  } catch (error) {
    const warning = `allowing the stop after an error: ${message(error)}`;
    await record(projectDir, {
      ...base,
      session_id: input?.session_id ?? null,
      stop_hook_active: input?.stop_hook_active ?? null,
      decision: 'allow',
      reason: 'error',
      iteration: null,
      max_iterations: null,
      warning,
    }).catch(() => null);
    return { stdout: '', decision: 'allow', reason: 'error', warning };
  }
}
