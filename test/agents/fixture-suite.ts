// Test helper: loads an adapter's recorded streams (test/fixtures/streams/<agent>/) and registers the shared
// adapter contract against them, so each adapter test file only states what its fixtures must parse to.
import type { AdapterDeps } from '../../src/agents/adapter-deps.js';
import type { AgentAdapter } from '../../src/agents/types.js';
import type { ErrorKind, Usage } from '../../src/core/types.js';
import { adapterContract, type ContractFixtures, type ContractOptions } from './adapter-contract.js';
import { readFixture, SIGNAL } from './run-adapter.js';

/** The fixed "now" of the adapter tests: 2026-11-22 13:00 UTC. */
export const FIXTURE_NOW = Date.UTC(2026, 10, 22, 13, 0);

/** Adapter deps with a clock stopped at FIXTURE_NOW in UTC. */
export function fixedDeps(isRoot: boolean): AdapterDeps {
  return { clock: () => ({ nowMs: FIXTURE_NOW, timeZone: 'UTC' }), isRoot };
}

/** A reader of one agent's recorded fixtures by name (without .jsonl). */
export function fixtureReader(agent: string): (name: string) => Promise<string> {
  return (name) => readFixture(agent, name);
}

/** One error case: its stdout is `stdout` when given, else the fixture `fixture` (default: `name`). */
export interface ErrorFixtureSpec {
  name: string;
  kind: ErrorKind;
  fixture?: string;
  stdout?: string;
  exitCode?: number;
  stderr?: string;
  resetAtMs?: number | null;
}

/** The contract fixtures named by fixture file rather than given as text. */
export interface FixtureSuiteSpec {
  /** A successful run's fixture and what it must parse to. */
  success: { fixture: string; sessionId: string | null; textIncludes: string; usage: Usage | null };
  /** The fixture whose tool output (or echoed input) holds SIGNAL while the agent's own text does not. */
  toolOutputSignal: string;
  errors: ErrorFixtureSpec[];
}

/** Reads the named fixtures of `agent` and registers the adapter contract on them. */
export async function fixtureContract(adapter: AgentAdapter, agent: string, spec: FixtureSuiteSpec, options: ContractOptions = {}): Promise<void> {
  const fixture = fixtureReader(agent);
  const { fixture: successName, ...success } = spec.success;
  const errors: ContractFixtures['errors'] = [];
  for (const { fixture: name, stdout, ...rest } of spec.errors) errors.push({ ...rest, stdout: stdout ?? (await fixture(name ?? rest.name)) });
  adapterContract(
    adapter,
    {
      success: { ...success, stdout: await fixture(successName) },
      toolOutputSignal: { stdout: await fixture(spec.toolOutputSignal), signal: SIGNAL },
      errors,
    },
    options,
  );
}
