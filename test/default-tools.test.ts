// What the model sees for the default tool set, pinned: the native JSON schemas and the generated
// SDK. The SDK is also compiled with the TypeScript compiler together with programs that use it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderTypeScriptSdk } from '../src/languages/index.js';
import { createHarness } from '../src/harness.js';
import { compileTs } from './helpers/compile-ts.js';

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-default-tools-'));
const harness = await createHarness({ cwd: workspace, preset: 'ptc' });
afterAll(async () => {
  await harness.dispose();
  fs.rmSync(workspace, { recursive: true, force: true });
});

/**
 * Wraps a program body the way the runtime does (the body of an async function). The runtime's
 * capturing console is a global of the program, not part of the SDK, so it is declared here.
 */
function program(body: string): string {
  return (
    `export {};\ndeclare global { const console: { log(...args: unknown[]): void } }\n` +
    `async function main(): Promise<unknown> {\n${body}\n}\nvoid main;\n`
  );
}

const CORRECT_PROGRAM = `
  const file = await tools.read({ path: 'src/a.ts', offset: 1, limit: 20 });
  const lines: string = file.content;
  const written = await tools.write({ path: 'out.txt', content: lines });
  const edited = await tools.edit({ path: 'out.txt', old_string: 'a', new_string: 'b', replace_all: true });
  const found = await tools.glob({ pattern: '**/*.ts' });
  const hits = await tools.grep({ pattern: 'TODO', glob: '*.ts', ignore_case: true });
  const shell = await tools.bash({ command: 'git status', timeout_ms: 5000 });
  if (shell.exitCode !== 0) console.log(shell.stderr);
  for (const hit of hits.matches) console.log(hit.path, hit.line, hit.text);
  try {
    await tools.read({ path: 'missing' });
  } catch (error) {
    if (error instanceof ToolCallError) console.log(error.toolName, error.message);
  }
  return { bytes: written.bytes, replaced: edited.replacements, files: found.files.length };
`;

describe('the tool set of the ptc and standard presets as the model sees it', () => {
  const schemas = harness.tools.schemas();

  it('is bash, edit, glob, grep, read, skill, task, todo, web_fetch, workflow_save, write with input and output schemas', () => {
    expect(schemas.map((s) => s.name)).toEqual(['bash', 'edit', 'glob', 'grep', 'read', 'skill', 'task', 'todo', 'web_fetch', 'workflow_save', 'write']);
    for (const s of schemas) expect(s.outputSchema).toBeDefined();
  });

  it('native schemas are pinned', async () => {
    await expect(`${JSON.stringify(schemas, null, 2)}\n`).toMatchFileSnapshot('snapshots/default-tools.schemas.json');
  });

  it('the SDK text is pinned and byte-stable', async () => {
    const sdk = renderTypeScriptSdk(schemas);
    expect(renderTypeScriptSdk([...schemas].reverse())).toBe(sdk);
    await expect(sdk).toMatchFileSnapshot('snapshots/default-tools.sdk.d.ts');
  });

  it('compiles with a program that calls every tool correctly: zero diagnostics', () => {
    const sdk = renderTypeScriptSdk(schemas);
    const { diagnostics } = compileTs({ 'sdk.d.ts': sdk, 'program.ts': program(CORRECT_PROGRAM) });
    expect(diagnostics).toEqual([]);
  });

  it.each([
    ['a wrong argument type', `await tools.read({ path: 42 });`, 'path'],
    ['a missing required argument', `await tools.edit({ path: 'a', old_string: 'x' });`, 'new_string'],
    ['an unknown tool', `await tools.reed({ path: 'a' });`, 'reed'],
    ['a wrong use of the result', `const r = await tools.glob({ pattern: '*' }); const n: number = r.files;`, 'number'],
  ])('reports %s (the types are not any)', (_label, body, mention) => {
    const sdk = renderTypeScriptSdk(schemas);
    const { diagnostics } = compileTs({ 'sdk.d.ts': sdk, 'program.ts': program(body) });
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.join('\n')).toContain(mention);
  });
});
