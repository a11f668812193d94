// The `--timeout` ceiling over a runtime row's timeout config (docs/security.md, "Limits that hold").

import { describe, expect, it } from 'vitest';
import { timeoutOf } from './process-runtime-row.js';

describe('timeoutOf', () => {
  it('--timeout is the default and the ceiling; a row cannot raise either', () => {
    expect(timeoutOf(10_000, undefined)).toEqual({ defaultMs: 10_000, maxMs: 10_000 });
    expect(timeoutOf(10_000, { defaultMs: 600_000, maxMs: 900_000 })).toEqual({ defaultMs: 10_000, maxMs: 10_000 });
  });

  it('a row may lower the ceiling or the default under it', () => {
    expect(timeoutOf(10_000, { maxMs: 5_000 })).toEqual({ defaultMs: 5_000, maxMs: 5_000 });
    expect(timeoutOf(10_000, { defaultMs: 2_000, minMs: 500 })).toEqual({ defaultMs: 2_000, minMs: 500, maxMs: 10_000 });
  });

  it('control: without --timeout the row decides', () => {
    expect(timeoutOf(undefined, { defaultMs: 600_000, maxMs: 900_000 })).toEqual({ defaultMs: 600_000, maxMs: 900_000 });
    expect(timeoutOf(undefined, undefined)).toEqual({});
  });
});
