import { describe, expect, it } from 'vitest';
import { capErrorMessage, utf8Prefix } from './error-text.js';

describe('capErrorMessage', () => {
  it('leaves a message within the limit as it is', () => {
    expect(capErrorMessage('short (program.ts:1:2)', 64)).toBe('short (program.ts:1:2)');
    expect(capErrorMessage('x'.repeat(64), 64)).toBe('x'.repeat(64));
  });

  it('keeps the head, says how long the message was, and keeps the program location', () => {
    const message = `Error: ${'x'.repeat(5000)} (program.ts:12:34)`;
    const capped = capErrorMessage(message, 200);
    expect(capped.startsWith('Error: xxx')).toBe(true);
    expect(capped).toContain(`… [message truncated: ${message.length} bytes in all]`);
    expect(capped.endsWith(' (program.ts:12:34)')).toBe(true);
    expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(200);
  });

  it('cuts at a character boundary and counts UTF-8 bytes', () => {
    const message = '€'.repeat(1000) + '😀'.repeat(1000);
    for (const max of [100, 101, 102, 150, 3100]) {
      const capped = capErrorMessage(message, max);
      expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(max);
      expect(capped).not.toContain('\uFFFD');
      expect(capped).toContain(`[message truncated: ${Buffer.byteLength(message)} bytes in all]`);
    }
  });
});

describe('utf8Prefix', () => {
  it('never splits a character', () => {
    expect(utf8Prefix('a€b', 1)).toBe('a');
    expect(utf8Prefix('a€b', 3)).toBe('a');
    expect(utf8Prefix('a€b', 4)).toBe('a€');
    expect(utf8Prefix('😀😀', 5)).toBe('😀');
    expect(utf8Prefix('abc', 10)).toBe('abc');
  });
});
