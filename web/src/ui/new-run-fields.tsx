// The new-run form's groups of fields: the prompt (text, file, procedure or workflow), the agent and model, the
// limits (their placeholders are what an empty field gives) and the verify gate.
import { useQuery } from '@tanstack/react-query';
import { listAgents } from '../api/client.js';
import { EMPTY_GIVES, type NewRunForm } from '../lib/new-run.js';
import { Field, TextInput } from './new-run-field.js';
import type { FormBinding } from './use-new-run.js';

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

/** Where the prompt comes from, and the fields of the source picked; then the extra context. */
export function PromptFields({ binding }: { binding: FormBinding }) {
  const { form, errors, set } = binding;
  return (
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
          <TextInput name="promptFile" binding={binding} placeholder="PROMPT.md" />
        </Field>
      )}
      {form.promptKind === 'workflow' && (
        <>
          <Field label="Workflow" name="workflow" errors={errors} hint="a workflow's name (.ringmaster/workflows/, or shipped: ralph, plan-implement-review), or a file relative to the workspace">
            <TextInput name="workflow" binding={binding} placeholder="ralph" />
          </Field>
          <Field label="Message ($USER_MESSAGE)" name="message" errors={errors}>
            <textarea id="f-message" name="message" rows={3} value={form.message} onChange={(e) => set('message', e.target.value)} />
          </Field>
        </>
      )}
      {form.promptKind === 'procedure' && (
        <Field label="Procedure" name="procedure" errors={errors} hint="bootstrap, plan, build, or one defined in the workspace's config">
          <TextInput name="procedure" binding={binding} placeholder="build" />
        </Field>
      )}
      <Field label="Extra context (--context)" name="context" errors={errors}>
        <textarea id="f-context" name="context" rows={2} value={form.context} onChange={(e) => set('context', e.target.value)} />
      </Field>
    </fieldset>
  );
}

/** The agent (the server's list, from `GET /api/agents`), its command when it is `command`, and the model. */
export function AgentFields({ binding }: { binding: FormBinding }) {
  const { form, errors, set } = binding;
  const agents = useQuery({ queryKey: ['agents'], queryFn: listAgents, staleTime: Infinity });
  return (
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
          <TextInput name="agentCommand" binding={binding} placeholder="my-agent --fast" />
        </Field>
      )}
      <Field label="Model (--model)" name="model" errors={errors}>
        <TextInput name="model" binding={binding} />
      </Field>
    </fieldset>
  );
}

/** The limits: max iterations (or unlimited), then the others, each showing what an empty field gives. */
export function LimitFields({ binding }: { binding: FormBinding }) {
  const { form, errors, set } = binding;
  return (
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
          <TextInput name={name} binding={binding} placeholder={EMPTY_GIVES[name]} />
        </Field>
      ))}
    </fieldset>
  );
}

/** The verify gate: the command, its timeout, and whether it runs after every iteration. */
export function VerifyFields({ binding }: { binding: FormBinding }) {
  const { form, errors, set } = binding;
  return (
    <fieldset>
      <legend>Verify gate</legend>
      <Field label="Verify command (--verify)" name="verify" errors={errors} hint="must exit 0 in the workspace before a claimed completion ends the run (split like a shell line, run without a shell)">
        <TextInput name="verify" binding={binding} placeholder="npm test" />
      </Field>
      <Field label="Verify timeout" name="verifyTimeout" errors={errors}>
        <TextInput name="verifyTimeout" binding={binding} placeholder={EMPTY_GIVES.verifyTimeout} />
      </Field>
      <Field label="Check after every iteration (--verify-each)" name="verifyEach" errors={errors} hint="not only when the agent claims completion">
        <input id="f-verifyEach" name="verifyEach" type="checkbox" checked={form.verifyEach} onChange={(e) => set('verifyEach', e.target.checked)} />
      </Field>
    </fieldset>
  );
}
