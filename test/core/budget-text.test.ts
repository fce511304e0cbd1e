// Dollar figures as budgets and limits show them: a limit as it was given (never rounded to a cent), a notice's
// spent and limit.
import { describe, expect, it } from 'vitest';
import { budgetNoticeText, limitText } from '../../src/core/budget.js';

describe('limitText', () => {
  it('shows cents at least and up to 4 decimals, never rounding a limit below a cent up', () => {
    expect([5, 12.5, 0.1, 0.005, 0.0125, 1.2345, 0].map(limitText)).toEqual(['5.00', '12.50', '0.10', '0.005', '0.0125', '1.2345', '0.00']);
  });

  it('is how a budget notice states its limit', () => {
    expect(budgetNoticeText({ window: 'daily', percent: 80, spent_usd: 0.004, limit_usd: 0.005, resets_at: Date.UTC(2026, 0, 3) })).toBe(
      '80% of the daily budget: $0.0040 of $0.005 spent (resets 2026-01-03T00:00:00.000Z)',
    );
  });
});
