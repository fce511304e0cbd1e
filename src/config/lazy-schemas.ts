// Settings' zod schemas built on first use. Building a zod schema costs tens of microseconds per node on a cold
// start, and the ~75 settings are ~900 nodes (~30 ms of CPU at import, more than a whole `node -e 0`), while a
// one-iteration `ringmaster run` checks the few values it was given and takes the rest from the parsed defaults
// (config/defaults.ts). A schema is built once: each key's and each section's is memoized.
import { z } from 'zod';

/** A setting's schema, to build: its value schema with `.prefault(default)` and `.describe(...)`. */
export type SchemaThunk = () => z.ZodType;

/** The settings of a section (or of a group inside one): name -> schema thunk, in `config show` order. */
export type Thunks = Readonly<Record<string, SchemaThunk>>;

/** The strict object schema a section's thunks build. */
export type SectionSchema<T extends Thunks> = z.ZodObject<{ -readonly [K in keyof T]: ReturnType<T[K]> }, z.core.$strict>;

const built = new WeakMap<SchemaThunk, z.ZodType>();

/** The schema of one setting, built on first use (the same instance afterwards, also inside its section). */
export function schemaOf(thunk: SchemaThunk): z.ZodType {
  let schema = built.get(thunk);
  if (schema === undefined) {
    schema = thunk();
    built.set(thunk, schema);
  }
  return schema;
}

/** `build`, called on first use only. */
export function lazy<T>(build: () => T): () => T {
  let value: { v: T } | null = null;
  return () => (value ??= { v: build() }).v;
}

/** A section's strict object schema, built (with every key's) on first use. */
export function sectionSchema<T extends Thunks>(thunks: T): () => SectionSchema<T> {
  return lazy(() => z.strictObject(Object.fromEntries(Object.entries(thunks).map(([name, thunk]) => [name, schemaOf(thunk)]))) as SectionSchema<T>);
}
