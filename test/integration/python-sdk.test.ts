// The Python SDK as the model sees it for the ptc preset's tools: pinned, compiled by python3
// (py_compile), and type-checked together with programs by pyright when it is installed (an npm
// package that runs offline; the test says when it skips). Hostile names and descriptions must
// still compile.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderPythonSdk } from '../../src/languages/index.js';
import { createHarness } from '../../src/harness.js';
import type { ToolSchema } from '../../src/tools/types.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-python-sdk-'));
const harness = await createHarness({ cwd: dir, preset: 'ptc', sandbox: 'off' });
afterAll(async () => {
  await harness.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function pyCompile(file: string): { status: number | null; stderr: string } {
  const run = spawnSync('python3', ['-m', 'py_compile', file], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

/** The pyright CLI when the package is installed here, else undefined. */
function pyrightCli(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('pyright/package.json');
    const cli = join(dirname(pkg), 'index.js');
    return existsSync(cli) ? cli : undefined;
  } catch {
    return undefined;
  }
}

const HOSTILE: ToolSchema[] = [
  { name: 'quote"name', description: 'ends in a quote"', inputSchema: { type: 'object', properties: { 'a"b': { type: 'string', description: '"""\\' } } } },
  { name: 'new\nline', description: 'control \u0000 \u001b chars\r\nand """ triple', inputSchema: { type: 'object', properties: {} } },
  { name: 'class', description: 'a keyword', inputSchema: { type: 'object', properties: { class: { type: 'string' }, None: { const: null } } } },
  { name: '__init__', description: 'a dunder', inputSchema: { type: 'object', properties: {} } },
  { name: '1st', description: 'starts with a digit', inputSchema: { anyOf: [{ type: 'string' }, { type: 'object', properties: { x: { type: 'integer' } } }] } },
  { name: 'weird-schema', description: 'recursion and junk', inputSchema: { type: 'object', properties: { self: { $ref: '#' }, bad: { $ref: 'http://x' }, e: { enum: [1.5, { a: 1 }] } } } },
];

describe('the Python SDK of the ptc preset', () => {
  const schemas = harness.tools.schemas();
  const sdk = renderPythonSdk(schemas);

  it('is pinned and byte-stable', async () => {
    expect(renderPythonSdk([...schemas].reverse())).toBe(sdk);
    await expect(sdk).toMatchFileSnapshot('../snapshots/ptc-python.sdk.py');
  });

  it('compiles with python3 -m py_compile, also with hostile names and descriptions', () => {
    const file = join(dir, 'sdk.py');
    writeFileSync(file, renderPythonSdk([...schemas, ...HOSTILE]));
    const compiled = pyCompile(file);
    expect(compiled.stderr).toBe('');
    expect(compiled.status).toBe(0);
  });

  it('type-checks a correct program and rejects a wrong one (pyright)', (context) => {
    const cli = pyrightCli();
    if (cli === undefined) {
      console.warn('skipping the pyright check: the pyright package is not installed (npm install pyright to run it)');
      context.skip();
    }
    writeFileSync(join(dir, 'sdk.py'), sdk);
    const program = (body: string) => `import asyncio\nfrom sdk import *\n\n\nasync def main() -> JsonValue:\n${body.replace(/^/gm, '    ')}\n`;
    writeFileSync(
      join(dir, 'good.py'),
      program(
        [
          'file = await tools.read({"path": "a.txt", "offset": 1})',
          'found, hits = await asyncio.gather(tools.glob({"pattern": "**/*.py"}), tools.grep({"pattern": "TODO"}))',
          'try:',
          '    await tools.write({"path": "out.txt", "content": file["content"]})',
          'except ToolCallError as error:',
          '    print(error.tool_name, error.code, str(error))',
          'shell = await tools["bash"]({"command": "ls"})',
          'return [len(found["files"]), hits["totalMatches"], shell["exitCode"]]',
        ].join('\n'),
      ),
    );
    writeFileSync(join(dir, 'bad.py'), program('await tools.read({"path": 1})\nawait tools.read({"paht": "a.txt"})\nreturn None'));
    const check = (file: string) => spawnSync(process.execPath, [cli as string, '--pythonversion', '3.11', join(dir, file)], { cwd: dir, encoding: 'utf8' });
    const good = check('good.py');
    expect(good.stdout).toContain('0 errors');
    const bad = check('bad.py');
    expect(bad.stdout).toMatch(/2 errors/);
  });

  it('python3 is the one the runtime would run', () => {
    expect(execFileSync('python3', ['-c', 'import sys; print(sys.version_info >= (3, 9))'], { encoding: 'utf8' }).trim()).toBe('True');
  });
});
