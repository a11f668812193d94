import vm from 'node:vm';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkWorkflowCode, referenceProblem, withInput } from './workflow-check.js';
import { parseWorkflowFile, renderWorkflowFile, workflowNameProblem } from './workflow-file.js';

const TS = [
  '// ---',
  '// name: count_todos',
  '// description: Count TODO lines under a folder.',
  '// input:',
  '//   type: object',
  '//   properties:',
  '//     dir: { type: string }',
  '//   required: [dir]',
  '// ---',
  'const hits = await tools.grep({ pattern: "TODO", path: input.dir });',
  'return hits;',
  '',
].join('\n');

function problemOf(text: string, language: 'typescript' | 'python' = 'typescript') {
  const parsed = parseWorkflowFile('/w/x.ts', text, language);
  if (!('problem' in parsed)) throw new Error('expected a problem');
  return parsed.problem;
}

describe('parseWorkflowFile', () => {
  it('reads name, description and the input schema from the leading comment block', () => {
    const parsed = parseWorkflowFile('/w/count_todos.ts', TS, 'typescript');
    expect('workflow' in parsed && parsed.workflow).toMatchObject({
      name: 'count_todos',
      description: 'Count TODO lines under a folder.',
      input: { type: 'object', properties: { dir: { type: 'string' } }, required: ['dir'] },
      language: 'typescript',
      source: TS,
    });
  });

  it('reads a Python header made of # lines', () => {
    const text = '# ---\n# name: hello\n# description: Greets.\n# input: { type: object }\n# ---\nreturn 1\n';
    const parsed = parseWorkflowFile('/w/hello.py', text, 'python');
    expect('workflow' in parsed && parsed.workflow.name).toBe('hello');
  });

  it('names the line and the fix of each problem', () => {
    expect(problemOf('const x = 1;\n')).toMatchObject({ line: 1, message: expect.stringContaining('starts with a `// ---` line') });
    expect(problemOf('// ---\n// name: a\nconst x = 1;\n')).toMatchObject({ line: 3, message: expect.stringContaining('not closed') });
    expect(problemOf('// ---\n// name: a\n// description: [oops\n// input: { type: object }\n// ---\n')).toMatchObject({ line: 4, message: expect.stringContaining('not valid YAML') });
    expect(problemOf('// ---\n// name: Bad-Name\n// description: d\n// input: { type: object }\n// ---\n')).toMatchObject({ line: 2, message: expect.stringContaining('lowercase') });
    expect(problemOf('// ---\n// name: a\n// input: { type: object }\n// ---\n')).toMatchObject({ message: expect.stringContaining('add `description:') });
    expect(problemOf('// ---\n// name: a\n// description: d\n// ---\n')).toMatchObject({ message: expect.stringContaining('add `input:`') });
    expect(problemOf('// ---\n// name: a\n// description: d\n// input: { type: string }\n// ---\n')).toMatchObject({ line: 4, message: expect.stringContaining('type: object') });
    expect(problemOf('// ---\n// name: a\n// description: d\n// input: { type: object }\n// output: {}\n// ---\n')).toMatchObject({ line: 5, message: expect.stringContaining('unknown header key "output"') });
  });

  it('renderWorkflowFile writes a header that parses back to the same fields', () => {
    const input = { type: 'object', properties: { q: { type: 'string', description: 'a: colon # and hash' } } };
    for (const language of ['typescript', 'python'] as const) {
      const text = renderWorkflowFile({ name: 'x_1', description: 'Does: things.', input }, '\nreturn 1\n\n', language, (v) => stringify(v));
      const parsed = parseWorkflowFile('/w/x_1', text, language);
      expect('workflow' in parsed && parsed.workflow).toMatchObject({ name: 'x_1', description: 'Does: things.', input });
      expect(text.endsWith('return 1\n')).toBe(true);
    }
  });

  it('workflowNameProblem accepts identifiers only', () => {
    expect(workflowNameProblem('count_todos2')).toBeUndefined();
    for (const bad of ['', '2x', 'a-b', 'A', 'a.b', 'x'.repeat(49)]) expect(workflowNameProblem(bad)).toBeDefined();
  });
});

describe('checkWorkflowCode', () => {
  it('TypeScript: collects tools.<name> references with the file line; input is bound without moving a line', async () => {
    const check = await checkWorkflowCode(TS, 'typescript');
    expect(check).toEqual({ ok: true, refs: [{ name: 'grep', line: 10 }] });
    expect(withInput(TS, 'typescript', '{"dir":"src"}').split('\n').length).toBe(TS.split('\n').length);
  });

  it('the input is bound as data: quotes, newlines and code in it stay a value', () => {
    const evil = { q: '"); globalThis.hacked = 1; ("\n\u2028`${x}`\\', n: [1, null] };
    const program = withInput(TS, 'typescript', JSON.stringify(evil));
    const first = program.split('\n')[0]!;
    const sandbox: Record<string, unknown> = {};
    expect(vm.runInNewContext(`${first}\n;input`, sandbox)).toEqual(evil);
    expect(sandbox['hacked']).toBeUndefined();
  });

  it('TypeScript: a syntax error is reported at its line in the file', async () => {
    const check = await checkWorkflowCode(TS.replace('return hits;', 'return hits +;'), 'typescript');
    expect(check).toMatchObject({ ok: false, line: 11 });
  });

  it('TypeScript: declaring `input` again is an error (it is bound)', async () => {
    const check = await checkWorkflowCode(`${TS}const input = 2;\n`, 'typescript');
    expect(check.ok).toBe(false);
  });

  it('referenceProblem: an unknown tool, or another workflow; MCP names pass', () => {
    expect(referenceProblem([{ name: 'grep', line: 3 }, { name: 'fs__read', line: 4 }], ['grep'])).toBeUndefined();
    expect(referenceProblem([{ name: 'grpe', line: 3 }], ['grep', 'read'])).toMatchObject({ line: 3, message: expect.stringMatching(/tools\.grpe.*grep/s) });
    expect(referenceProblem([{ name: 'workflow_x', line: 5 }], ['workflow_x'])).toMatchObject({ line: 5, message: expect.stringContaining('cannot call workflows') });
  });
});
