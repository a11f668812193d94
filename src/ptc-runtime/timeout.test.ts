import { describe, expect, it } from 'vitest';
import { createTimeoutDescriptor, resolveTimeoutMs } from './timeout.js';

describe('timeout descriptor', () => {
  const descriptor = createTimeoutDescriptor({ defaultMs: 1000, minMs: 100, maxMs: 5000 });

  it('fills the default and keeps values in range', () => {
    expect(resolveTimeoutMs(descriptor, undefined)).toBe(1000);
    expect(resolveTimeoutMs(descriptor, 100)).toBe(100);
    expect(resolveTimeoutMs(descriptor, 5000)).toBe(5000);
  });

  it.each([99, 5001, 1.5, '1000', Number.NaN, null])('rejects %j with CONFIG naming the field', (value) => {
    expect(() => resolveTimeoutMs(descriptor, value)).toThrow(expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('timeoutMs') }));
  });

  it('rejects inconsistent descriptors', () => {
    expect(() => createTimeoutDescriptor({ defaultMs: 10, minMs: 100, maxMs: 5000 })).toThrow(/defaultMs/);
    expect(() => createTimeoutDescriptor({ defaultMs: 100, minMs: 100, maxMs: 50 })).toThrow(/minMs/);
    expect(() => createTimeoutDescriptor({ defaultMs: 0, minMs: 0, maxMs: 50 })).toThrow(/positive integer/);
  });
});
