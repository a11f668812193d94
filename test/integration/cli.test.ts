// The real `ptc` binary as a user runs it (dist/, built by the global setup like `npm ci` does).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compileTs } from '../helpers/compile-ts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/main.js');
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-cli-'));
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

function ptc(args: string[], options: { cwd?: string; input?: string } = {}) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? workspace,
    encoding: 'utf8',
    input: options.input,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A user error must never show a stack trace. */
function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

/** The ```ts block of the SDK section (the whole text when there is no fence). */
function sdkDeclarations(text: string): string {
  const fenced = /```ts\n([\s\S]*?)```/.exec(text);
  return fenced ? fenced[1]! : text;
}

describe('ptc tools', () => {
  it('--json lists the visible tools with their schemas', () => {
    const { code, stdout, stderr } = ptc(['tools', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as { name: string; inputSchema: unknown; executionMode: string }[];
    expect(tools.map((t) => t.name)).toEqual(['bash', 'edit', 'glob', 'grep', 'read', 'write']);
    expect(tools.find((t) => t.name === 'read')).toMatchObject({ executionMode: 'parallel', inputSchema: { type: 'object' } });
    expect(tools.find((t) => t.name === 'write')?.executionMode).toBe('exclusive');
  });

  it('prints a readable list without --json', () => {
    const { code, stdout } = ptc(['tools']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^read {2}\(parallel\)$/m);
    expect(stdout).toContain('- path: string, required');
  });
});

describe('ptc sdk', () => {
  it('prints an SDK that compiles', () => {
    const { code, stdout } = ptc(['sdk']);
    expect(code).toBe(0);
    expect(stdout).toContain('declare const tools');
    expect(compileTs({ 'sdk.d.ts': sdkDeclarations(stdout) }).diagnostics).toEqual([]);
  });
});

describe('usage errors exit 2 with a message, never a stack trace', () => {
  it.each([
    ['an unknown flag', ['tools', '--frobnicate']],
    ['an unknown command', ['frobnicate']],
    ['a bad --lang', ['sdk', '--lang', 'cobol']],
  ])('%s', (_label, args) => {
    const { code, stdout, stderr } = ptc(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.length).toBeGreaterThan(0);
    expectNoStack(stderr);
  });

  it('a missing --cwd names the path and the fix', () => {
    const missing = path.join(workspace, 'nope');
    const { code, stderr } = ptc(['tools', '--cwd', missing]);
    expect(code).toBe(2);
    expect(stderr).toContain(missing);
    expect(stderr).toContain('existing directory');
    expectNoStack(stderr);
  });

  it('--help exits 0', () => {
    const { code, stdout } = ptc(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: ptc');
  });
});
