// Properties of what users and other programs hand Ringmaster: configuration values (from YAML, env or flags),
// durations, the Stop hook's stdin, and the usage figures agents report. Nothing throws but a typed error;
// what is accepted round-trips.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { normaliseCost, normaliseUsage } from '../../src/agents/usage-guard.js';
import { loadConfig, sourced } from '../../src/config/load.js';
import { SETTINGS } from '../../src/config/settings.js';
import { ConfigError } from '../../src/core/errors.js';
import { formatDuration, formatElapsed, MAX_DURATION_MS, parseDuration } from '../../src/core/duration.js';
import { HookInputError, parseStopHookInput } from '../../src/hook/hook-input.js';
import { runStopHook } from '../../src/hook/stop-hook.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'rm-prop-'));
  dirs.push(d);
  return d;
}

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

describe('durations', () => {
  it('parseDuration never throws, and gives null or a whole, non-negative number of ms', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const ms = parseDuration(text);
        expect(ms === null || (Number.isInteger(ms) && ms >= 0) || ms === Infinity).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('a sum of parts written as 1h30m10s parses to that sum', () => {
    const part = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom(...(Object.keys(UNITS) as Array<keyof typeof UNITS>)));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const text = parts.map(([n, u]) => `${n}${u}`).join('');
        expect(parseDuration(text)).toBe(parts.reduce((sum, [n, u]) => sum + n * UNITS[u], 0));
      }),
    );
  });

  it('formatDuration round-trips through parseDuration; formatElapsed never throws', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_DURATION_MS }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
        expect(typeof formatElapsed(ms)).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});

describe('configuration values', () => {
  const anyValue = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
    fc.constantFrom('none', '5m', '1h30m', '$20', '0', '-1', '1e999', 'yes', 'bypass', '100MiB', 'a,b', '"unterminated'),
  );

  it('any value of any key, in a file, in the env or as a flag: a ConfigError at worst, and a typed value otherwise', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SETTINGS), anyValue, fc.constantFrom('file', 'env', 'flag'), (setting, value, where) => {
        const dir = temp();
        const env: Record<string, string> = { XDG_CONFIG_HOME: join(dir, 'xdg') };
        const flags: Array<{ key: string; flag: string; raw: string }> = [];
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        // Nested as the key is (manager.defaults.max_cost is manager: { defaults: { max_cost } }).
        const nested = setting.path.reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
        if (where === 'file') writeFileSync(join(dir, 'ringmaster.yml'), stringify(nested));
        else if (where === 'env') env[`RINGMASTER_${setting.key.replace(/\./g, '_').toUpperCase()}`] = text;
        else flags.push({ key: setting.key, flag: '--x', raw: text });
        try {
          const config = loadConfig(dir, env, flags);
          const resolved = sourced(config, setting).value;
          expect(resolved).not.toBeUndefined();
          if (typeof resolved === 'number') expect(Number.isFinite(resolved) && resolved >= 0).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          expect((error as ConfigError).message).toContain(where === 'file' ? 'ringmaster.yml' : setting.key);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a YAML file of random text never throws anything but a ConfigError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const dir = temp();
        writeFileSync(join(dir, 'ringmaster.yml'), text);
        try {
          loadConfig(dir, { XDG_CONFIG_HOME: join(dir, 'xdg') });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('Stop hook stdin', () => {
  it('parseStopHookInput: a validated event or a HookInputError, whatever the text', () => {
    const stdin = fc.oneof(
      fc.string(),
      fc.json(),
      fc.record({ session_id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), stop_hook_active: fc.oneof(fc.boolean(), fc.string()), transcript_path: fc.oneof(fc.string(), fc.constant(null)) }).map((o) => JSON.stringify(o)),
    );
    fc.assert(
      fc.property(stdin, (text) => {
        try {
          const input = parseStopHookInput(text);
          expect(typeof input.session_id).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(HookInputError);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('runStopHook never throws: any stdin allows or blocks, with the decision as JSON or nothing', async () => {
    const project = temp();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.json(), fc.record({ session_id: fc.string({ minLength: 1 }), transcript_path: fc.constantFrom(null, '/dev/zero', '/nonexistent', project), cwd: fc.constant(project), last_assistant_message: fc.string() }).map((o) => JSON.stringify(o))),
        async (text) => {
          const outcome = await runStopHook(text, { env: {}, cwd: project, now: () => new Date(0) });
          expect(['allow', 'block']).toContain(outcome.decision);
          if (outcome.stdout !== '') expect(JSON.parse(outcome.stdout)).toMatchObject({ decision: 'block' });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('usage figures', () => {
  const figure = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(Infinity, -Infinity, Number.NaN, 1e30, -0, 0.5, Number.MAX_VALUE));
  it('normalised usage is whole, non-negative and plausible; a cost is finite and non-negative, or unknown', () => {
    fc.assert(
      fc.property(figure, figure, figure, figure, figure, (a, b, c, d, usd) => {
        const { usage } = normaliseUsage({ tokensIn: a, tokensOut: b, cacheRead: c, cacheWrite: d });
        for (const v of Object.values(usage)) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
        const cost = normaliseCost(usd).usd;
        expect(cost === null || (Number.isFinite(cost) && cost >= 0)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
