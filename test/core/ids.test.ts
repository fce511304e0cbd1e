// Run ids: fixed width, sortable by time, random suffix from the injected source.
import { describe, expect, it } from 'vitest';
import { looksLikeRunId, newRunId } from '../../src/core/ids.js';

describe('newRunId', () => {
  it('is 9 base36 digits of time then 4 random digits', () => {
    const zeros = () => 0;
    const top = () => 0.999999;
    expect(newRunId(Date.UTC(2025, 0, 2), zeros)).toBe(`${Date.UTC(2025, 0, 2).toString(36).padStart(9, '0')}0000`);
    expect(newRunId(0, top)).toBe('000000000zzzz');
    expect(newRunId(35, () => 0.5)).toBe('00000000ziiii');
  });

  it('sorts by creation time as plain strings', () => {
    const random = () => 0.3;
    const ids = [5, 1_000, 36 ** 5, Date.UTC(2030, 0, 1), Date.UTC(2031, 0, 1)].map((t) => newRunId(t, random));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every(looksLikeRunId)).toBe(true);
  });

  it('rejects a bad time', () => {
    expect(() => newRunId(-1, () => 0)).toThrow(RangeError);
    expect(looksLikeRunId('Bad-Id')).toBe(false);
  });
});
