/** SPEC-2 §E.2's wait between pre-push rounds: 200 ms doubling, ±50 %, at most 5 s. */
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/sync/push.js';

describe('backoffMs', () => {
  it('doubles from 200 ms with ±50 % jitter and never exceeds 5 s', () => {
    expect(backoffMs(0, () => 0)).toBe(100);
    expect(backoffMs(0, () => 0.5)).toBe(200);
    expect(backoffMs(0, () => 0.999999)).toBe(300);
    expect(backoffMs(3, () => 0.5)).toBe(1600);
    expect(backoffMs(4, () => 0)).toBe(1600);
    expect(backoffMs(5, () => 0.5)).toBe(5000);
    expect(backoffMs(5, () => 0.999999)).toBe(5000);
    expect(backoffMs(40, () => 0)).toBe(2500);
  });
});
