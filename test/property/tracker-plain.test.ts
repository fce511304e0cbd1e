// The tracker's hand-written frontmatter path (tracker-plain.ts, what `hook stop` uses) against the YAML library
// and the schema (tracker-yaml.ts): wherever the hand path answers, it answers exactly what the YAML path does,
// reading and writing; and a tracker Ringmaster writes with ordinary values is read by the hand path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainFrontmatter, plainYaml, splitTracker } from '../../src/hook/tracker-plain.js';
import { formatTracker, parseTracker, type TrackerFrontmatter } from '../../src/hook/tracker-yaml.js';

/** What the YAML path makes of a frontmatter text: its frontmatter, or 'refused'. */
function viaYaml(yaml: string): TrackerFrontmatter | 'refused' {
  try {
    return parseTracker(`---\n${yaml}\n---\nbody\n`, 't.md').frontmatter;
  } catch {
    return 'refused';
  }
}

const KEYS = ['iteration', 'max_iterations', 'completion_marker', 'active', 'started_at', 'session_id', 'task', 'continue_message', 'ended_at', 'stop_reason', 'run_id', 'verify', 'verify_timeout_ms', 'owner', 'null', 'True', 'x_1'];
const TRICKY = ['null', 'Null', '~', 'true', 'TRUE', 'yes', 'no', '0', '-1', '007', '1e3', '0x1F', '.inf', '12:30', 'a: b', 'a #c', ' a', 'a ', 'a  b', "it's", '"q"', "'s'", '-', '- a', '[1]', '{a: 1}', '|', '>', '&a', '*a', '!t', '%', '@', '`', '#', '', 'é', 'a\tb', '2026-02-25T10:00:00Z', '2026-02-25T10:00:00.123456Z', '2026-02-25', 'run-0a1b', 'E2E_COMPLETE', 'a,b', 'a/b', 'x=1', '50%', 'e(1)', '0mwybzmwtl4t5', '0x1f', '0x1g', '0o17', '0o18', '1e5', '12e', '0e0', '1e5a', '0123', '9zz', '0b101'];
/** Words that start with a digit, like run ids, and some that YAML reads as numbers (0x1f, 0o17, 1e5, 0123). */
const digitWord = fc.stringMatching(/^[0-9](?:[0-9a-z]{0,12}|x[0-9a-f]{1,4}|o[0-7]{1,4}|[0-9]{0,3}e[0-9]{1,3})$/);
const valueText = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 12 }),
  fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'binary', maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.integer({ min: -5, max: 2 ** 53 + 5 }).map(String),
  digitWord,
  fc.constantFrom('"\\u00e9"', '"\\/"', '"\\ud83d\\ude00"', '"\\ud800"', '"a\\tb"', '"\\x41"', '"\\e"', '"\\N"'),
);
const line = fc.tuple(fc.constantFrom(...KEYS), valueText).map(([k, v]) => `${k}: ${v}`);
const VALID_BASE = ['iteration: 3', 'max_iterations: 10', 'completion_marker: DONE', 'active: true', 'started_at: 2026-02-25T10:00:00Z'];

const plainText = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _.,/()+=@%'-]{0,20}$/);
const stringValue = fc.oneof(plainText, digitWord, fc.string({ maxLength: 10 }), fc.constantFrom(...TRICKY));
const frontmatter = fc.record({
  iteration: fc.integer({ min: 0, max: 2 ** 40 }),
  max_iterations: fc.integer({ min: 1, max: 1_000_000 }),
  completion_marker: stringValue.filter((s) => s !== ''),
  active: fc.boolean(),
  started_at: fc.oneof(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString()), stringValue),
  session_id: fc.option(stringValue.filter((s) => s !== '')),
  task: stringValue,
  continue_message: fc.option(stringValue),
  ended_at: fc.option(stringValue),
  stop_reason: fc.option(stringValue),
  run_id: fc.option(stringValue.filter((s) => s !== '')),
  verify: fc.option(stringValue.filter((s) => s !== '')),
  verify_timeout_ms: fc.integer({ min: 1, max: 2 ** 40 }),
});

describe('tracker frontmatter: the hand path agrees with the YAML path', () => {
  it('reads any frontmatter text as the YAML library and the schema do, or leaves it to them', () => {
    const text = fc.oneof(
      fc.array(line, { maxLength: 8 }).map((lines) => lines.join('\n')),
      fc.tuple(fc.shuffledSubarray(VALID_BASE, { minLength: 4 }), fc.array(line, { maxLength: 4 })).map(([a, b]) => [...a, ...b].join('\n')),
    );
    fc.assert(
      fc.property(text, (yaml) => {
        const plain = plainFrontmatter(yaml);
        if (plain !== null) expect(plain).toEqual(viaYaml(yaml));
        if (plain !== null) expect(Object.keys(plain)).toEqual(Object.keys(viaYaml(yaml)));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes byte for byte what the yaml library writes, and reads it back by hand when it wrote it', () => {
    fc.assert(
      fc.property(frontmatter, (f) => {
        const tracker = { frontmatter: f, body: '# Body\n' };
        const reference = formatTracker(tracker);
        const plain = plainYaml(f);
        if (plain !== null) expect(`---\n${plain}---\n# Body\n`).toBe(reference);
        const back = plainFrontmatter(splitTracker(reference, 't.md').yaml);
        if (back !== null) expect(back).toEqual(parseTracker(reference, 't.md').frontmatter);
        if (plain !== null) expect(back).toEqual(f);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers by hand for the trackers `loop start` and the hook write', () => {
    const yaml = 'iteration: 34\nmax_iterations: 1000000\ncompletion_marker: DONE\nactive: true\nstarted_at: 2026-11-26T19:16:01.949Z\nsession_id: bench\ntask: Benchmark the stop hook\ncontinue_message: null\nended_at: null\nstop_reason: null\nrun_id: 0mwybzmwtl4t5\nverify: null\nverify_timeout_ms: 600000';
    expect(plainFrontmatter(yaml)).toEqual(viaYaml(yaml));
    expect(plainFrontmatter(yaml)).not.toBeNull();
  });
});
