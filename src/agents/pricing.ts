// Cost from tokens x a dated price table (data/prices.json), for agents that do not report their own cost.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Usage } from '../core/types.js';

const usdPerMillion = (): z.ZodNumber =>
  z.number({ error: (i) => `expected a price in USD per million tokens, got ${JSON.stringify(i.input) ?? 'nothing'}` }).min(0, {
    error: (i) => `must be at least 0, got ${JSON.stringify(i.input)}`,
  });

const priceSchema = z.strictObject({
  input: usdPerMillion(),
  output: usdPerMillion(),
  cache_write: usdPerMillion().nullable(),
  cache_read: usdPerMillion().nullable(),
});

/** Prices of one model in USD per million tokens; null cache prices fall back to the input price. */
export type ModelPrice = z.infer<typeof priceSchema>;

/** Model name -> price. */
export type PriceTable = Record<string, ModelPrice>;

const fileSchema = z.object({ as_of: z.string(), models: z.record(z.string(), priceSchema) });

/** Schema for price overrides in config (`prices.<model>`). */
export const priceOverridesSchema = z.record(z.string(), priceSchema.partial({ cache_write: true, cache_read: true }));

let builtIn: { asOf: string; table: PriceTable } | undefined;

/** The built-in price table and its date. */
export function builtInPrices(): { asOf: string; table: PriceTable } {
  if (!builtIn) {
    const raw: unknown = JSON.parse(readFileSync(new URL('../../data/prices.json', import.meta.url), 'utf8'));
    const parsed = fileSchema.parse(raw);
    builtIn = { asOf: parsed.as_of, table: parsed.models };
  }
  return builtIn;
}

/** Normalises a model id for lookup: lower case, provider prefix and date suffix removed. */
export function normaliseModel(model: string): string {
  let m = model.toLowerCase().trim();
  const slash = m.lastIndexOf('/');
  if (slash >= 0) m = m.slice(slash + 1);
  return m.replace(/-\d{8}$/, '').replace(/\[.*\]$/, '');
}

/** Finds the price of a model: exact match first, then the longest table key the model id starts with. */
export function findPrice(model: string, table: PriceTable): ModelPrice | null {
  const m = normaliseModel(model);
  if (table[m]) return table[m];
  let best: string | null = null;
  for (const key of Object.keys(table)) {
    if (m.startsWith(key) && (best === null || key.length > best.length)) best = key;
  }
  return best === null ? null : (table[best] ?? null);
}

/**
 * Cost in USD of the usage for a model; null when the model is unknown (cost unknown, never 0).
 * Overrides (from config) take precedence over the built-in table.
 */
export function computeCostUsd(model: string | null, usage: Usage, overrides: PriceTable = {}): number | null {
  if (model === null) return null;
  const price = findPrice(model, overrides) ?? findPrice(model, builtInPrices().table);
  if (!price) return null;
  const cacheWrite = price.cache_write ?? price.input;
  const cacheRead = price.cache_read ?? price.input;
  const micro =
    usage.tokensIn * price.input + usage.tokensOut * price.output + usage.cacheWrite * cacheWrite + usage.cacheRead * cacheRead;
  return micro / 1_000_000;
}
