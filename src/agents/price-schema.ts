// The shape of model prices (USD per million tokens): the built-in table's entries and the config's `prices:`
// overrides. Zod only (the dashboard bundles the config schemas, which use it).
import { z } from 'zod';

const usdPerMillion = (): z.ZodNumber =>
  z.number({ error: (i) => `expected a price in USD per million tokens, got ${JSON.stringify(i.input) ?? 'nothing'}` }).min(0, {
    error: (i) => `must be at least 0, got ${JSON.stringify(i.input)}`,
  });

/** Prices of one model; null cache prices fall back to the input price. */
export const priceSchema = z.lazy(() =>
  z.strictObject({
    input: usdPerMillion(),
    output: usdPerMillion(),
    cache_write: usdPerMillion().nullable(),
    cache_read: usdPerMillion().nullable(),
  }),
);

/** Prices of one model in USD per million tokens; null cache prices fall back to the input price. */
export type ModelPrice = z.infer<typeof priceSchema>;

/** Model name -> price. */
export type PriceTable = Record<string, ModelPrice>;

/** Schema for price overrides in config (`prices.<model>`). */
export const priceOverridesSchema = z.lazy(() => z.record(z.string(), priceSchema.unwrap().partial({ cache_write: true, cache_read: true })));
