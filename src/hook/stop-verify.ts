// The verify check of hook mode (`loop start --verify CMD`, docs/hook-mode.md "The verify check"): when the session
// claims completion, the Stop hook runs the check as `run --verify` does (runner/verify-gate.ts: no shell, its own
// process group killed at the end, bounded output, secrets redacted), outside the tracker's lock, then settles the
// claim under the lock: a pass ends the loop, a failure or a check out of time blocks the stop with the command and
// the end of its output. The check's time limit fits inside the timeout Claude Code gives the hook, so Claude Code
// never kills the hook first (which would let the session stop unverified).
import type { HookAllowReason } from '../core/hook-decision.js';
import { runVerify, verifyFeedback } from '../runner/verify-gate.js';
import type { VerifyRecord } from '../store/rows.js';
import { continuationWithNotes } from './hook-notes.js';
import { HOOK_MARGIN_SECONDS, installedTimeout, settingsPath } from './settings-install.js';
import type { LockedOutcome, StopHookContext } from './stop-hook-context.js';
import { continueMessage, readTracker, trackerPath, writeTracker, type TrackerFrontmatter } from './tracker.js';

/** A claim waiting for its check: the tracker's state when it was made. */
export interface PendingVerify {
  command: string;
  timeoutMs: number;
  iteration: number;
  /** How the completion was claimed (promise or marker_in_tracker). */
  claim: HookAllowReason;
}

/** The check's evidence and whether it ran out of time. */
export interface HookVerifyRun {
  record: VerifyRecord;
  timedOut: boolean;
}

/** The check's time limit: the tracker's, cut to what the installed hook's timeout leaves after the margin. */
export function verifyTimeoutMs(trackerMs: number, installedSeconds: number | null): number {
  if (installedSeconds === null) return trackerMs;
  return Math.min(trackerMs, (installedSeconds - HOOK_MARGIN_SECONDS) * 1000);
}

/** Runs the check of a claim in the project; `onStart` learns its time limit (the hook's own deadline moves). */
export async function runHookVerify(projectDir: string, pending: PendingVerify, ctx: StopHookContext): Promise<HookVerifyRun> {
  const installed = await installedTimeout(settingsPath(projectDir, 'claude'));
  const timeoutMs = verifyTimeoutMs(pending.timeoutMs, installed);
  if (timeoutMs < 1000) {
    const summary = `was not run: the Stop hook's timeout in .claude/settings.json (${installed}s) leaves it no time (run 'ringmaster hook install' again)`;
    return { record: { command: pending.command, passed: false, exit_code: null, duration_ms: 0, summary, output_tail: '' }, timedOut: true };
  }
  ctx.onVerify?.(timeoutMs);
  const run = await runVerify({ command: pending.command, timeoutMs, each: false }, { workspace: projectDir, env: ctx.env, signal: new AbortController().signal });
  return { record: run.record, timedOut: run.timedOut };
}

/** The block's reason after a failed check: what failed and how, the end of its output, then the usual continuation. */
export function verifyBlockReason(run: HookVerifyRun, continuation: string): string {
  const head = run.timedOut
    ? `You signalled completion, but the verify command \`${run.record.command}\` ${run.record.summary}: it ran out of time, so the completion is not verified and the session goes on. Make the check finish in time (or fix what hangs) before you signal completion again.`
    : verifyFeedback(run.record, true);
  return `${head}\n\n${continuation}`;
}

function ended(f: TrackerFrontmatter, sessionId: string, now: string, reason: 'success_signal' | 'max_iterations'): TrackerFrontmatter {
  return { ...f, active: false, session_id: f.session_id ?? sessionId, ended_at: now, stop_reason: reason };
}

/**
 * Settles a claim with its check, under the tracker's lock: the loop changed meanwhile (cancelled, another stop
 * decided): allow without touching it; passed: the loop ends (success_signal); failed or out of time: block and
 * continue, unless the continuations are used up (the loop ends max_iterations, the evidence kept).
 */
export async function settleClaim(projectDir: string, sessionId: string, pending: PendingVerify, run: HookVerifyRun, ctx: StopHookContext): Promise<LockedOutcome> {
  const tracker = await readTracker(projectDir);
  const f = tracker?.frontmatter;
  const base = { stdout: '', warning: null, verify: run.record, pending: null } as const;
  if (tracker === null || f === undefined || !f.active || f.iteration !== pending.iteration || (f.session_id !== null && f.session_id !== sessionId)) {
    const decision = { kind: 'allow', reason: 'inactive', stopReason: null } as const;
    return { ...base, decision, reason: 'inactive', iteration: f?.iteration ?? null, maxIterations: f?.max_iterations ?? null, runId: null, blocksBefore: pending.iteration };
  }
  const now = ctx.now().toISOString();
  const runId = typeof f.run_id === 'string' ? f.run_id : null;
  const common = { ...base, iteration: f.iteration, maxIterations: f.max_iterations, runId, blocksBefore: f.iteration };
  if (run.record.passed || f.iteration >= f.max_iterations) {
    const stopReason = run.record.passed ? 'success_signal' : 'max_iterations';
    await writeTracker(projectDir, { frontmatter: ended(f, sessionId, now, stopReason), body: tracker.body });
    const reason = run.record.passed ? pending.claim : 'max_iterations';
    return { ...common, decision: { kind: 'allow', reason, stopReason }, reason };
  }
  const next = { frontmatter: { ...f, iteration: f.iteration + 1, session_id: sessionId }, body: tracker.body };
  await writeTracker(projectDir, next);
  const noted = await continuationWithNotes(ctx.env, runId, f.iteration + 1, verifyBlockReason(run, continueMessage(next, trackerPath(projectDir))), ctx.now().getTime());
  return {
    ...common,
    decision: { kind: 'block', iteration: f.iteration + 1, sessionId },
    stdout: `${JSON.stringify({ decision: 'block', reason: noted.reason })}\n`,
    warning: noted.warning,
    reason: run.timedOut ? 'verify_timeout' : 'verify_failed',
    iteration: f.iteration + 1,
  };
}
