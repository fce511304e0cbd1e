// The new-run form: the options of `ringmaster run`, checked as the CLI checks them before anything is
// sent, then by the server (its message shown under the field it names, in the form's words). Empty fields leave
// the server's defaults, which their placeholders show.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import type { RunRequest } from '../api/api-types.js';
import { createRun, listAgents } from '../api/client.js';
import { EMPTY_FORM, EMPTY_GIVES, fieldOfServerError, validateNewRun, type FormErrors, type NewRunForm } from '../lib/new-run.js';

/** The prompt's sources, as the radio buttons say them. */
const PROMPT_KINDS: Record<NewRunForm['promptKind'], string> = {
  text: 'text (--prompt)',
  file: 'file (--prompt-file)',
  procedure: 'procedure (--procedure)',
  workflow: 'workflow (ringmaster workflow run)',
};

/** The limit fields after max iterations: name, label, hint. Their placeholder is what an empty field gives. */
const LIMIT_FIELDS: ReadonlyArray<[keyof typeof EMPTY_GIVES, string, string | undefined]> = [
  ['maxRuntime', 'Max runtime', '90s, 5m, 4h, 1h30m or none'],
  ['maxCost', 'Max cost (USD)', undefined],
  ['failureThreshold', 'Failure threshold', 'consecutive failed iterations before the run aborts'],
  ['cooldown', 'Cooldown', 'pause between iterations'],
  ['idleTimeout', 'Idle timeout', 'stop an iteration silent this long'],
  ['iterationTimeout', 'Iteration timeout', undefined],
  ['checkpointInterval', 'Checkpoint interval', 'git checkpoint every N iterations, 0 = off'],
  ['noProgressAfter', 'Stop on no progress after', 'iterations in a row that changed no file (git workspace), 0 = off'],
];

function Field({ label, name, errors, hint, children }: { label: string; name: keyof NewRunForm; errors: FormErrors; hint?: string; children: ReactNode }) {
  const error = errors[name];
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={`f-${name}`}>{label}</label>
      {children}
      {hint && !error && <small className="muted">{hint}</small>}
      {error && (
        <small className="error" id={`e-${name}`} data-testid={`error-${name}`}>
          {error}
        </small>
      )}
    </div>
  );
}

/** The new-run page (`/new`). */
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export default function NewRunPage() {
  const [form, setForm] = useState<NewRunForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<FormErrors>({});
  const [, navigate] = useLocation();
  const agents = useQuery({ queryKey: ['agents'], queryFn: listAgents, staleTime: Infinity });
  const create = useMutation({
    mutationFn: (body: RunRequest) => createRun(body),
    // The board learns of the new run from its first event; the run page loads it.
    onSuccess: (created) => navigate(`/runs/${encodeURIComponent(created.id)}`),
    onError: (error) => {
      const found = fieldOfServerError(error.message);
      if (found !== null) setErrors((e) => ({ ...e, [found.field]: found.message }));
    },
  });
  const set = <K extends keyof NewRunForm>(key: K, value: NewRunForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const text = (name: keyof NewRunForm, props: { placeholder?: string; type?: string } = {}) => (
    <input
      id={`f-${name}`}
      name={name}
      type={props.type ?? 'text'}
      placeholder={props.placeholder}
      value={form[name] as string}
      onChange={(e) => set(name, e.target.value as never)}
      aria-invalid={errors[name] ? true : undefined}
      aria-describedby={errors[name] ? `e-${name}` : undefined}
    />
  );

  return (
    <form
      className="new-run"
      data-testid="new-run"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const result = validateNewRun(form);
        setErrors(result.ok ? {} : result.errors);
        if (result.ok) create.mutate(result.body);
      }}
    >
      <h1>New run</h1>
      <Field label="Workspace (directory on the server's machine)" name="workspace" errors={errors}>
        {text('workspace', { placeholder: '/home/me/project' })}
      </Field>
      <fieldset>
        <legend>Prompt</legend>
        <div className="radios" role="radiogroup">
          {(['text', 'file', 'procedure', 'workflow'] as const).map((kind) => (
            <label key={kind}>
              <input type="radio" name="promptKind" value={kind} checked={form.promptKind === kind} onChange={() => set('promptKind', kind)} /> {PROMPT_KINDS[kind]}
            </label>
          ))}
        </div>
        {form.promptKind === 'text' && (
          <Field label="Prompt" name="prompt" errors={errors}>
            <textarea id="f-prompt" name="prompt" rows={6} value={form.prompt} onChange={(e) => set('prompt', e.target.value)} aria-invalid={errors.prompt ? true : undefined} />
          </Field>
        )}
        {form.promptKind === 'file' && (
          <Field label="Prompt file" name="promptFile" errors={errors} hint="relative to the workspace; re-read every iteration (default PROMPT.md)">
            {text('promptFile', { placeholder: 'PROMPT.md' })}
          </Field>
        )}
        {form.promptKind === 'workflow' && (
          <>
            <Field label="Workflow" name="workflow" errors={errors} hint="a workflow's name (.ringmaster/workflows/, or shipped: ralph, plan-implement-review), or a file relative to the workspace">
              {text('workflow', { placeholder: 'ralph' })}
            </Field>
            <Field label="Message ($USER_MESSAGE)" name="message" errors={errors}>
              <textarea id="f-message" name="message" rows={3} value={form.message} onChange={(e) => set('message', e.target.value)} />
            </Field>
          </>
        )}
        {form.promptKind === 'procedure' && (
          <Field label="Procedure" name="procedure" errors={errors} hint="bootstrap, plan, build, or one defined in the workspace's config">
            {text('procedure', { placeholder: 'build' })}
          </Field>
        )}
        <Field label="Extra context (--context)" name="context" errors={errors}>
          <textarea id="f-context" name="context" rows={2} value={form.context} onChange={(e) => set('context', e.target.value)} />
        </Field>
      </fieldset>
      <fieldset>
        <legend>Agent</legend>
        <Field label="Agent (--agent)" name="agent" errors={errors}>
          <select id="f-agent" name="agent" value={form.agent} onChange={(e) => set('agent', e.target.value)}>
            <option value="">server default</option>
            {(agents.data ?? []).map((a) => (
              <option key={a.name} value={a.name}>
                {a.name === a.display_name ? a.name : `${a.name} (${a.display_name})`}
              </option>
            ))}
          </select>
        </Field>
        {form.agent === 'command' && (
          <Field label="Agent command (--agent-command)" name="agentCommand" errors={errors}>
            {text('agentCommand', { placeholder: 'my-agent --fast' })}
          </Field>
        )}
        <Field label="Model (--model)" name="model" errors={errors}>
          {text('model')}
        </Field>
      </fieldset>
      <fieldset className="limits">
        <legend>Limits</legend>
        <Field label="Max iterations" name="maxIterations" errors={errors}>
          <input id="f-maxIterations" name="maxIterations" inputMode="numeric" placeholder={EMPTY_GIVES.maxIterations} value={form.maxIterations} disabled={form.unlimited} onChange={(e) => set('maxIterations', e.target.value)} aria-invalid={errors.maxIterations ? true : undefined} />
          <label className="inline">
            <input type="checkbox" checked={form.unlimited} onChange={(e) => set('unlimited', e.target.checked)} /> unlimited
          </label>
        </Field>
        <p className="muted limits-note">An empty field gives the server&apos;s default, shown greyed (unless the workspace&apos;s config sets one).</p>
        {LIMIT_FIELDS.map(([name, label, hint]) => (
          <Field key={name} label={label} name={name} errors={errors} hint={hint}>
            {text(name, { placeholder: EMPTY_GIVES[name] })}
          </Field>
        ))}
      </fieldset>
      <fieldset>
        <legend>Verify gate</legend>
        <Field label="Verify command (--verify)" name="verify" errors={errors} hint="must exit 0 in the workspace before a claimed completion ends the run (split like a shell line, run without a shell)">
          {text('verify', { placeholder: 'npm test' })}
        </Field>
        <Field label="Verify timeout" name="verifyTimeout" errors={errors}>
          {text('verifyTimeout', { placeholder: EMPTY_GIVES.verifyTimeout })}
        </Field>
        <Field label="Check after every iteration (--verify-each)" name="verifyEach" errors={errors} hint="not only when the agent claims completion">
          <input id="f-verifyEach" name="verifyEach" type="checkbox" checked={form.verifyEach} onChange={(e) => set('verifyEach', e.target.checked)} />
        </Field>
      </fieldset>
      <label className="inline">
        <input type="checkbox" checked={form.worktree} onChange={(e) => set('worktree', e.target.checked)} /> run in a fresh git worktree (--worktree)
      </label>
      <label className="inline">
        <input type="checkbox" checked={form.sandbox} onChange={(e) => set('sandbox', e.target.checked)} /> run every agent in an OS sandbox (--sandbox)
      </label>
      {create.isError && fieldOfServerError(create.error.message) === null && (
        <p className="error" role="alert" data-testid="server-error">
          {create.error.message}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Starting…' : 'Start run'}
        </button>
        <Link href="/">Cancel</Link>
      </div>
    </form>
  );
}
