// The tracker's frontmatter through the YAML library and its schema: the reference reading and writing of any
// tracker, loaded only when the hand-written path (tracker-plain.ts) does not answer.
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { splitTracker, TrackerError, type Tracker } from './tracker-plain.js';

/** The tracker's frontmatter, validated on every read. Unknown keys are kept. */
export const trackerFrontmatterSchema = z.looseObject({
  iteration: z.number().int().min(0),
  max_iterations: z.number().int().min(1),
  completion_marker: z.string().min(1),
  active: z.boolean(),
  started_at: z.string(),
  session_id: z.string().min(1).nullable().default(null),
  task: z.string().default(''),
  continue_message: z.string().nullable().default(null),
  ended_at: z.string().nullable().default(null),
  stop_reason: z.string().nullable().default(null),
  /** The loop's run in the project's store (null when the project has no store). */
  run_id: z.string().min(1).nullable().default(null),
  /** The check a claimed completion must pass (`loop start --verify`, split like agent.command); null = none. */
  verify: z.string().min(1).nullable().default(null),
  /** Its time limit in milliseconds (loop.verify_timeout). */
  verify_timeout_ms: z.number().int().min(1).default(600_000),
});

/** Frontmatter of a tracker. */
export type TrackerFrontmatter = z.infer<typeof trackerFrontmatterSchema>;

/** Parses tracker text: `---\n<yaml>\n---\n<body>`. Throws TrackerError. */
export function parseTracker(text: string, path: string): Tracker {
  const { yaml, body } = splitTracker(text, path);
  let raw: unknown;
  try {
    raw = parse(yaml);
  } catch (error) {
    throw new TrackerError(path, `invalid YAML frontmatter: ${(error as Error).message}`, { cause: error });
  }
  const result = trackerFrontmatterSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new TrackerError(path, `frontmatter ${issue?.path.join('.') || 'root'}: ${issue?.message ?? 'invalid'}`);
  }
  return { frontmatter: result.data, body };
}

/** Serialises a tracker; the body is kept byte for byte. */
export function formatTracker(tracker: Tracker): string {
  const yaml = stringify(tracker.frontmatter, { lineWidth: 0 });
  return `---\n${yaml}---\n${tracker.body}`;
}
