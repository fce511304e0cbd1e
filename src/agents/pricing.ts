// Cost from tokens x a dated price table (data/prices.json), for agents that do not report their own cost.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Usage } from '../core/types.js';
import { priceSchema, type ModelPrice, type PriceTable } from './price-schema.js';

/** Price shapes (pure, shared with the config schemas). */
export { priceOverridesSchema, type ModelPrice, type PriceTable } from './price-schema.js';

const fileSchema = z.object({ as_of: z.string(), models: z.record(z.string(), priceSchema) });

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
