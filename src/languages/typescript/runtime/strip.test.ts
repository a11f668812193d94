import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stripProgram, stripProgramAhead, stripsTakenAhead } from './strip.js';

function failure(program: string): string {
  const result = stripProgram(program);
  if (result.ok) throw new Error(`expected STRIP_FAILED for ${program}`);
  return result.message;
}

describe('stripProgram', () => {
  it('erases types in place: every line and column of the program keeps its position', () => {
    const program = 'interface P { x: number }\nconst p: P = { x: 1 };\nconst q = p as unknown as P;  return q.x;';
    const result = stripProgram(program);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const body = result.code.split('\n').slice(1, -1);
    expect(body).toHaveLength(3);
    const original = program.split('\n');
    body.forEach((line, index) => expect(line.length).toBe(original[index]?.length));
    expect(body[2]?.indexOf('return q.x')).toBe(original[2]?.indexOf('return q.x'));
  });

  it('allows top-level await and return (the program is an async function body)', () => {
    expect(stripProgram('const r = await Promise.resolve(1);\nreturn r;').ok).toBe(true);
  });

  it('blanks declare-only namespaces and generic calls', () => {
    expect(stripProgram('declare namespace Q { const x: number }\nfunction f<T>(x: T): T { return x }\nreturn f<number>(1)').ok).toBe(true);
  });

  it.each([
    ['enum', 'const a = 1;\n  enum Color { Red }', 'program.ts:2:3', 'use a const object instead of enum'],
    ['namespace', 'namespace N { export const x = 1 }', 'program.ts:1:1', 'use a plain object or module-level functions'],
    ['parameter property', 'class A {\n  constructor(private x: number) {}\n}', 'program.ts:2:23', 'declare the field and assign it in the constructor'],
    ['angle-bracket cast', 'const x: unknown = 1;\nconst y = <number>x;', 'program.ts:2:11', 'use `x as T`'],
  ])('rejects %s with its position and the fix', (_name, program, at, fix) => {
    const message = failure(program);
    expect(message.startsWith(`${at}:`)).toBe(true);
    expect(message).toContain(fix);
  });

  it('reports invalid syntax with line:column', () => {
    expect(failure('const a = 1;\nconst = 2;')).toMatch(/^program\.ts:2:7: invalid syntax/);
  });

  it('reports errors only V8 finds (duplicate declarations) with line:column', () => {
    expect(failure('let x = 1;\n  let x = 2;')).toMatch(/^program\.ts:2:7: invalid syntax: SyntaxError: Identifier 'x' has already been declared/);
  });

  it('points at the end of the program for an unclosed block', () => {
    expect(failure('if (true) {\n  return 1;')).toMatch(/^program\.ts:2:12 \(end of program\)/);
  });

  it('tells a module-style program what to use instead of import', () => {
    expect(failure('import fs from "node:fs";\nreturn 1;')).toContain('await import("name")');
  });
});

describe('stripProgramAhead', () => {
  const typed = 'const n: number = await tools.count({ path: "a" as string });\ninterface X { a: 1 }\nreturn n;';

  it('strips on a worker, and the next stripProgram of that program takes its result once', async () => {
    const fresh = stripProgram(typed);
    const before = stripsTakenAhead();
    await stripProgramAhead(typed);
    expect(stripProgram(typed)).toEqual(fresh);
    expect(stripsTakenAhead()).toBe(before + 1);
    // Used once: the same program again is stripped on this thread.
    expect(stripProgram(typed)).toEqual(fresh);
    expect(stripsTakenAhead()).toBe(before + 1);
  });

  it('never hands one program the result made for another', async () => {
    const before = stripsTakenAhead();
    await stripProgramAhead(typed);
    const other = 'const s: string = "x";\nreturn s;';
    expect(stripProgram(other)).toEqual({ ok: true, code: '(async function () {\nconst s         = "x";\nreturn s;\n})' });
    expect(stripsTakenAhead()).toBe(before);
  });

  it('works in a plain node process with nothing else running, as `ptc exec` uses it', () => {
    // The built module (dist/, built by the global setup), with no loader hook and no test runner:
    // the process must wait for the worker and take its result.
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
    const moduleUrl = pathToFileURL(path.join(root, 'dist/languages/typescript/runtime/strip.js')).href;
    const script = [
      `import { stripProgram, stripProgramAhead, stripsTakenAhead } from ${JSON.stringify(moduleUrl)};`,
      "await stripProgramAhead('const n: number = 1;\\nreturn n;');",
      "const result = stripProgram('const n: number = 1;\\nreturn n;');",
      'console.log(JSON.stringify({ ok: result.ok, taken: stripsTakenAhead() }));',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ ok: true, taken: 1 });
  });

  it('leaves a program the eraser rejects to stripProgram, which reports it as without', async () => {
    const broken = 'enum Color { Red }\nreturn 1;';
    const without = stripProgram(broken);
    expect(without.ok).toBe(false);
    await stripProgramAhead(broken);
    expect(stripProgram(broken)).toEqual(without);
  });
});
