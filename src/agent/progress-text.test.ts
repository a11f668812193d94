import { describe, expect, it } from 'vitest';
import { progressLine } from './progress-text.js';

describe('progressLine', () => {
  it('shows a run_code call by its description, its sub-calls as they settle and the first result line', () => {
    expect(progressLine({ kind: 'step', step: 2 })).toBe('[step 2]');
    expect(progressLine({ kind: 'tool-start', id: 'c1', name: 'run_code', args: { code: 'return 1', description: 'Count the files' } })).toBe(
      '  → run_code "Count the files" (c1)',
    );
    expect(progressLine({ kind: 'tool-start', id: 'c2', name: 'read', args: { path: 'a' } })).toBe('  → read (c2)');
    expect(progressLine({ kind: 'sub-call-start', parentId: 'c1', id: 'c1:ptc:1', tool: 'glob', args: {} })).toBeUndefined();
    expect(progressLine({ kind: 'sub-call-end', parentId: 'c1', id: 'c1:ptc:1', tool: 'glob', isError: false, content: '\n3 files\nmore' })).toBe(
      '      · glob 3 files',
    );
    expect(progressLine({ kind: 'sub-call-end', parentId: 'c1', id: 'c1:ptc:2', tool: 'read', isError: true, content: 'Error [TOOL_FAILED]: gone' })).toBe(
      '      ✗ read Error [TOOL_FAILED]: gone',
    );
    expect(progressLine({ kind: 'tool-end', id: 'c1', name: 'run_code', ms: 12, isError: false, subCalls: 1, content: `${'x'.repeat(150)}\nsecond` })).toBe(
      `  ✓ run_code 12 ms, 1 sub-call: ${'x'.repeat(99)}…`,
    );
    expect(progressLine({ kind: 'tool-end', id: 'c2', name: 'read', ms: 3, isError: true, subCalls: 0, content: '' })).toBe('  ✗ read 3 ms');
  });
});
