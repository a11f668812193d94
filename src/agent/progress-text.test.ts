import { describe, expect, it } from 'vitest';
import { keyArguments, progressLine } from './progress-text.js';

describe('progressLine', () => {
  it('shows each call by its tool and key arguments, sub-calls indented under their program', () => {
    expect(progressLine({ kind: 'step', step: 2 })).toBe('[step 2]');
    expect(progressLine({ kind: 'tool-start', id: 'c1', name: 'run_code', args: { code: 'return 1', description: 'Count the files\nthen sum' } })).toBe(
      '  → run_code "Count the files" (c1)',
    );
    expect(progressLine({ kind: 'tool-start', id: 'c2', name: 'read', args: { path: 'src/a.ts' } })).toBe('  → read src/a.ts (c2)');
    expect(progressLine({ kind: 'sub-call-start', parentId: 'c1', id: 'c1:ptc:1', tool: 'glob', args: {} })).toBeUndefined();
    expect(
      progressLine({ kind: 'sub-call-end', parentId: 'c1', id: 'c1:ptc:1', tool: 'grep', args: { pattern: 'TODO', glob: '**/*.ts' }, isError: false, content: '3 matches' }),
    ).toBe('      · grep "TODO" **/*.ts');
    expect(
      progressLine({ kind: 'sub-call-end', parentId: 'c1', id: 'c1:ptc:2', tool: 'read', args: { path: 'gone.txt' }, isError: true, content: 'Error [TOOL_FAILED]: gone\nmore' }),
    ).toBe('      ✗ read gone.txt: Error [TOOL_FAILED]: gone');
    expect(progressLine({ kind: 'tool-end', id: 'c1', name: 'run_code', ms: 12, isError: false, subCalls: 1, content: `${'x'.repeat(150)}\nsecond` })).toBe(
      `  ✓ run_code 12 ms, 1 sub-call: ${'x'.repeat(99)}…`,
    );
    expect(progressLine({ kind: 'tool-end', id: 'c2', name: 'read', ms: 3, isError: true, subCalls: 0, content: '' })).toBe('  ✗ read 3 ms');
  });

  it('picks the key arguments of each built-in tool and two of any other tool', () => {
    expect(keyArguments('bash', { command: 'npm test\necho done', description: 'tests' })).toBe('npm test');
    expect(keyArguments('edit', { path: 'a.ts', old_string: 'x', new_string: 'y' })).toBe('a.ts');
    expect(keyArguments('str_replace_editor', { command: 'view', path: 'src' })).toBe('view src');
    expect(keyArguments('glob', { pattern: '**/*.md' })).toBe('**/*.md');
    expect(keyArguments('web_fetch', { url: 'https://example.org' })).toBe('https://example.org');
    expect(keyArguments('task', { description: 'find usages', prompt: 'long' })).toBe('"find usages"');
    expect(keyArguments('todo', { todos: [] })).toBe('');
    expect(keyArguments('mcp__weather__forecast', { city: 'Oslo', days: 3, units: 'metric' })).toBe('city=Oslo days=3');
    expect(keyArguments('read', 'not an object')).toBe('');
  });

  it('escapes control characters and cuts long arguments', () => {
    expect(keyArguments('read', { path: 'a\u001b[2J\rb' })).toBe('a\\u001b[2J\\u000db');
    const long = keyArguments('bash', { command: 'x'.repeat(200) });
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
  });
});
