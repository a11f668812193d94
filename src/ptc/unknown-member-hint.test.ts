import { describe, expect, it } from 'vitest';
import { withUnknownMemberHint } from './unknown-member-hint.js';

const tools = ['fs__read_file', 'echo'];
const sdk = ['describe', 'search'];

describe('withUnknownMemberHint', () => {
  it('adds the nearest tool to the Python runtime\'s missing-member error', () => {
    const error = { code: 'EXCEPTION' as const, message: "AttributeError: tools has no member 'fs__raed_file'; the SDK lists them (line 1)" };
    expect(withUnknownMemberHint(error, tools, sdk).message).toContain('Did you mean "fs__read_file"?');
  });

  it('leaves other errors and other codes alone', () => {
    const other = { code: 'EXCEPTION' as const, message: 'TypeError: x.map is not a function' };
    expect(withUnknownMemberHint(other, tools, sdk)).toBe(other);
    const timeout = { code: 'TIMEOUT' as const, message: 'tools.ecoh is not a function' };
    expect(withUnknownMemberHint(timeout, tools, sdk)).toBe(timeout);
  });
});
