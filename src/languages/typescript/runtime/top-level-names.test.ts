import { createContext, Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { stripProgram } from './strip.js';
import { keepTopLevelNames } from './top-level-names.js';

/**
 * Runs a kept program in a context of its own, as a kept process runs it in its global context;
 * returns its value and the context's global object (a later program may run in the same one).
 */
async function runKept(
  program: string,
  global: Record<string, unknown> = createContext({}),
  bindings: Record<string, unknown> = {},
): Promise<{ value: unknown; global: Record<string, unknown> }> {
  const stripped = stripProgram(program);
  if (!stripped.ok) throw new Error(stripped.message);
  const kept = keepTopLevelNames(stripped.code, Object.keys(bindings));
  if (!kept.ok) throw new Error(kept.message);
  // The kept wrapper is a function of the global object and the run's bindings (none here) that returns the body.
  const outer = new Script(kept.code).runInContext(global) as (global: unknown, bindings: object) => () => Promise<unknown>;
  const fn = outer(new Script('globalThis').runInContext(global), bindings);
  return { value: await fn(), global };
}

describe('keepTopLevelNames', () => {
  it("takes the run's bindings as parameters: the body finds them, never a global an earlier program set", async () => {
    const global = createContext({ tools: { from: 'a global' } });
    const given = { tools: { from: 'this run' }, ToolCallError: 'class' };
    const { value } = await runKept('const seen = tools.from;\nreturn [seen, ToolCallError];', global, given);
    expect(value).toEqual(['this run', 'class']);
    // A program's own top-level declaration of a binding's name stays its own: no global is written.
    const shadowed = await runKept('let tools = "mine";\nfunction ToolCallError() {}\nreturn [tools, typeof ToolCallError];', global, given);
    expect(shadowed.value).toEqual(['mine', 'function']);
    expect(global['tools']).toEqual({ from: 'a global' });
    expect('ToolCallError' in global).toBe(false);
  });

  it('makes top-level let, var, const, function and class names properties of the global object', async () => {
    const { value, global } = await runKept(
      [
        'const a: number = 1, { b, c: [d] } = { b: 2, c: [3] };',
        'let e: string | undefined, f = 4;',
        'var [g, ...h] = [5, 6, 7];',
        'function k() { return a + f; }',
        'class K { m() { return 8; } }',
        'for (let i = 0; i < 2; i++) f++;',
        'return [a, b, d, e, f, g, h, k(), new K().m()];',
      ].join('\n'),
    );
    expect(value).toEqual([1, 2, 3, undefined, 6, 5, [6, 7], 7, 8]);
    expect(global).toMatchObject({ a: 1, b: 2, d: 3, e: undefined, f: 6, g: 5, h: [6, 7] });
    expect(typeof global['k']).toBe('function');
    expect(typeof global['K']).toBe('function');
    expect('i' in global).toBe(false);
  });

  it('lets a later program read, change and declare again what an earlier one defined', async () => {
    const { global } = await runKept('let count = 1;\nconst label = "x";');
    const { value } = await runKept('count += 1;\nconst label = "y";\nreturn [count, label];', global);
    expect(value).toEqual([2, 'y']);
    expect(global).toMatchObject({ count: 2, label: 'y' });
  });

  it('works under "use strict" and keeps nested and block-level declarations local', async () => {
    const { value, global } = await runKept('"use strict"\nlet x;\nif (true) { let inner = 1; x = inner; }\nfunction f() { const local = 2; return local; }\nreturn [x, f()];');
    expect(value).toEqual([1, 2]);
    expect(Object.keys(global).sort()).toEqual(['f', 'x']);
  });

  it('keeps every line and column of the program: errors point at the model\'s own text', () => {
    const program = 'let a = 1;\nconst b: number = 2;\nconst { c } = { c: 3 };\nthrow new Error("x");';
    const stripped = stripProgram(program);
    if (!stripped.ok) throw new Error(stripped.message);
    const kept = keepTopLevelNames(stripped.code);
    if (!kept.ok) throw new Error(kept.message);
    const bodyLines = kept.code.split('\n').slice(1, -1);
    expect(bodyLines).toHaveLength(4);
    expect(bodyLines[3]!.indexOf('throw')).toBe(program.split('\n')[3]!.indexOf('throw'));
    expect(bodyLines[1]!.indexOf('b')).toBe(program.split('\n')[1]!.indexOf('b'));
  });

  it('leaves names that cannot be global properties local', async () => {
    const { value, global } = await runKept('const undefined = 5;\nlet NaN = 6;\nreturn [undefined, NaN];');
    expect(value).toEqual([5, 6]);
    expect(global).toEqual({});
  });
});
