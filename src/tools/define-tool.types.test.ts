// defineTool's types judged by the TypeScript compiler: snippets that import it from the sources
// must compile when `execute` agrees with the schemas and must not when it contradicts them.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { compileTs } from '../../test/helpers/compile-ts.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const header = [
  `import { z } from ${JSON.stringify(path.join(repo, 'node_modules/zod/index.js'))};`,
  `import { defineTool } from ${JSON.stringify(path.join(repo, 'src/tools/define-tool.js'))};`,
  `import type { JsonValue } from ${JSON.stringify(path.join(repo, 'src/json.js'))};`,
  '',
].join('\n');

const input = "z.object({ a: z.number(), label: z.string().default('sum'), note: z.string().optional() })";
const output = 'z.object({ sum: z.number(), label: z.string() })';

/** Snippets keyed by file name; `ok-*` must compile, `bad-*` must not. */
const SNIPPETS: Record<string, string> = {
  'ok-zod.mts': `
    export const t = defineTool({
      name: 'add', description: 'Adds.', input: ${input}, output: ${output},
      examples: [{ a: 1 }, { a: 2, label: 'two' }],
      execute(args, exec) {
        // A defaulted field is present after parsing; an optional one may be missing.
        const label: string = args.label;
        const note: string | undefined = args.note;
        void note; void exec.signal;
        return { sum: args.a, label };
      },
      renderContent: (value) => \`\${value.label} = \${value.sum}\`,
    });
    const parsed: { a: number; label: string; note?: string | undefined } = null as unknown as Parameters<typeof t.execute>[0];
    void parsed;`,
  'ok-zod-async-no-output.mts': `
    export const t = defineTool({
      name: 'echo', description: 'Echoes.', input: z.object({ x: z.array(z.string()) }),
      async execute(args) { return args.x.join(','); },
    });`,
  'ok-json-schema.mts': `
    export const plain = defineTool({
      name: 'plain', description: 'JSON Schema, no generics.', inputSchema: { type: 'object' },
      execute(args) { const v: JsonValue = args; return v; },
    });
    export const typed = defineTool<{ path: string }, { size: number }>({
      name: 'typed', description: 'JSON Schema with generics.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      examples: [{ path: 'a' }],
      execute: (args) => ({ size: args.path.length }),
    });`,
  'bad-arg-type.mts': `
    export const t = defineTool({
      name: 'add', description: 'Adds.', input: ${input},
      execute(args: { a: string; label: string }) { return args.a; },
    });`,
  'bad-arg-extra-field.mts': `
    export const t = defineTool({
      name: 'add', description: 'Adds.', input: ${input},
      execute(args: { a: number; label: string; other: boolean }) { return args.a; },
    });`,
  'bad-unknown-field.mts': `
    export const t = defineTool({
      name: 'add', description: 'Adds.', input: ${input},
      execute(args) { return args.b; },
    });`,
  'bad-return.mts': `
    export const t = defineTool({
      name: 'add', description: 'Adds.', input: ${input}, output: ${output},
      execute(args) { return { sum: String(args.a), label: args.label }; },
    });`,
  'bad-return-missing.mts': `
    export const t = defineTool({
      name: 'add', description: 'Adds.', input: ${input}, output: ${output},
      async execute(args) { return { sum: args.a }; },
    });`,
  'bad-example.mts': `
    export const t = defineTool({
      name: 'add', description: 'Adds.', input: ${input},
      examples: [{ a: 'one' }],
      execute(args) { return args.a; },
    });`,
  'bad-non-json-return.mts': `
    export const t = defineTool({
      name: 'now', description: 'Now.', input: z.object({}),
      execute() { return new Date(); },
    });`,
  'bad-json-schema-args.mts': `
    export const t = defineTool({
      name: 'plain', description: 'JSON Schema, no generics: args is JsonValue.', inputSchema: { type: 'object' },
      execute(args) { const n: number = args; return n; },
    });`,
};

/** What the compiler must say about each contradicting snippet. */
const WHY: Record<string, string> = {
  'bad-arg-type.mts': "Types of parameters 'args' and 'args' are incompatible",
  'bad-arg-extra-field.mts': "Property 'other' is missing",
  'bad-unknown-field.mts': "Property 'b' does not exist",
  'bad-return.mts': "Type 'string' is not assignable to type 'number'",
  'bad-return-missing.mts': "Property 'label' is missing",
  'bad-example.mts': "Type 'string' is not assignable to type 'number'",
  'bad-non-json-return.mts': "Type '() => Date' is not assignable",
  'bad-json-schema-args.mts': "Type 'JsonValue' is not assignable to type 'number'",
};

describe('defineTool types', () => {
  const files = Object.fromEntries(Object.entries(SNIPPETS).map(([name, body]) => [name, header + body]));
  const { diagnostics } = compileTs(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [path.join(repo, 'node_modules/@types')],
    skipLibCheck: true,
  });
  const forFile = (name: string) => diagnostics.filter((d) => d.startsWith(`${name}(`));

  it('nothing outside the snippets fails (the sources compile under these options)', () => {
    expect(diagnostics.filter((d) => !Object.keys(SNIPPETS).some((name) => d.startsWith(`${name}(`)))).toEqual([]);
  });

  it.each(Object.keys(SNIPPETS).filter((n) => n.startsWith('ok-')))('%s compiles', (name) => {
    expect(forFile(name)).toEqual([]);
  });

  it.each(Object.entries(WHY))('%s does not compile: %s', (name, why) => {
    expect(forFile(name).join('\n')).toContain(why);
  });

  it('every bad snippet has its reason pinned', () => {
    expect(Object.keys(SNIPPETS).filter((n) => n.startsWith('bad-'))).toEqual(Object.keys(WHY));
  });
});
