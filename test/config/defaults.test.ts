// The parsed built-in values (config/defaults.ts) against the schemas' own defaults, and the settings' schemas
// built on first use only (config/lazy-schemas.ts).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { loadConfig } from '../../src/config/load.js';
import { SECTIONS, SETTINGS, settingsSchema } from '../../src/config/settings.js';

describe('built-in defaults', () => {
  it('DEFAULTS is what the schemas give when nothing is set, key order included', () => {
    const parsed = settingsSchema().parse(Object.fromEntries(Object.keys(SECTIONS).map((s) => [s, {}])));
    expect(DEFAULTS).toStrictEqual(parsed);
    expect(JSON.stringify(DEFAULTS)).toBe(JSON.stringify(parsed));
  });

  it('each setting alone parses undefined to its DEFAULTS value', () => {
    for (const setting of SETTINGS) {
      let value: unknown = DEFAULTS;
      for (const part of setting.path) value = (value as Record<string, unknown>)[part];
      expect([setting.key, setting.schema.parse(undefined)]).toStrictEqual([setting.key, value]);
    }
  });

  it('loaded settings are a copy: changing them leaves DEFAULTS and the next load alone', () => {
    const env = { XDG_CONFIG_HOME: join(tmpdir(), `ringmaster-no-config-${process.pid}`) };
    const first = loadConfig(null, env);
    first.settings.loop.completion_signals.push('mine');
    first.settings.loop.cooldown = 1;
    const second = loadConfig(null, env);
    expect(second.settings).toStrictEqual(DEFAULTS);
    expect(Object.isFrozen(DEFAULTS.loop.completion_signals)).toBe(true);
  });
});
