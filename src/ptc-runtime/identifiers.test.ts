import { describe, expect, it } from 'vitest';
import { globalNameProblem, isPortableIdentifier } from './identifiers.js';

describe('portable identifiers', () => {
  it.each(['tools', 'ToolCallError', '_x', '$', 'a1', 'mcp_github'])('accepts %s', (name) => {
    expect(isPortableIdentifier(name)).toBe(true);
  });

  it.each([
    ['', /not a portable identifier/],
    ['1a', /not a portable identifier/],
    ['my-tools', /not a portable identifier/],
    ['tööls', /not a portable identifier/],
    ['class', /reserved word/],
    ['await', /reserved word/],
    ['undefined', /reserved word/],
    [42, /must be a string/],
  ])('rejects %j', (name, problem) => {
    expect(globalNameProblem(name)).toMatch(problem);
  });
});
