// Where a failed binding call points: the program's own call site, exact to the column, however the
// call was made, with the program's Error.stackTraceLimit left as it set it. The child records one
// frame for a call with at most one argument and the program's limit for a built-in's callback
// (docs/control-channel.md, "Hot path").

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BindingFunction, RunRequest, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';

const workspace = mkdtempSync(join(tmpdir(), 'ptc-call-site-'));
const runtime = createNodeRuntime({ sandbox: 'auto', pool: false });
afterAll(async () => {
  await runtime.close();
  rmSync(workspace, { recursive: true, force: true });
});

const fail: BindingFunction = async () => {
  throw new Error('nope');
};
const echo: BindingFunction = async (args) => args;

async function run(program: string): Promise<RunResult> {
  const request: RunRequest = {
    program,
    cwd: workspace,
    bindings: [{ global: 'tools', functions: { fail, echo }, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }],
  };
  return runtime.run(await runtime.resolve(request));
}

/** The program's frames of the caught error's stack. */
const stackOf = (call: string): string =>
  ['try {', `  ${call};`, '} catch (e) {', '  return e.stack.split("\\n").slice(1).map((line) => line.trim());', '}'].join('\n');

describe('binding call sites', () => {
  it.each([
    // The column of the call, not of the `await` (2:9).
    ['a direct call', 'await tools.fail({ x: 1 })', ['at program.ts:2:15']],
    ['a call in an arrow', 'await Promise.all([1, 2].map((x) => tools.fail({ x })))', ['at program.ts:2:45']],
    ['a call in a named function', 'await (async function read(p) { return tools.fail({ p }); })(1)', ['at read (program.ts:2:48)']],
    // The built-in passes three arguments: its frame comes first, the program's after it.
    ['a member passed to a built-in', 'await Promise.all([{ x: 1 }].map(tools.fail))', ['at program.ts:2:32']],
    ['a call without arguments', 'await tools.fail()', ['at program.ts:2:15']],
  ])('points at %s', async (_name, call, frames) => {
    const result = await run(stackOf(call));
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual(frames);
  });

  it('keeps the call site of arguments that are not JSON', async () => {
    const result = await run(['const a = { n: NaN };', stackOf('await tools.echo(a)')].join('\n'));
    expect(result.value).toEqual(['at program.ts:3:15']);
  });

  it("leaves the program's Error.stackTraceLimit as it set it, and honours a lower one", async () => {
    const result = await run(
      [
        'const seen = [Error.stackTraceLimit];',
        'await tools.echo({});',
        'seen.push(Error.stackTraceLimit);',
        'Error.stackTraceLimit = 25;',
        'await Promise.all([tools.echo({}), tools.echo({})]);',
        'seen.push(Error.stackTraceLimit);',
        'Error.stackTraceLimit = 0;',
        'try { await tools.fail({}); } catch (e) { seen.push(e.stack); }',
        'seen.push(Error.stackTraceLimit);',
        'return seen;',
      ].join('\n'),
    );
    expect(result.value).toEqual([10, 10, 25, 'ToolCallError: nope', 0]);
  });

  it('runs none of the program\'s code when its Error.stackTraceLimit is an accessor or read-only', async () => {
    const result = await run(
      [
        'let reads = 0, writes = 0;',
        'Object.defineProperty(Error, "stackTraceLimit", { get() { reads++; return 10; }, set() { writes++; }, configurable: true });',
        'try { await tools.fail({}); } catch (e) {}',
        'const accessor = [reads, writes];',
        'Object.defineProperty(Error, "stackTraceLimit", { value: 10, writable: false, configurable: true });',
        'let readOnly;',
        'try { await tools.fail({}); } catch (e) { readOnly = e.stack.split("\\n")[1].trim(); }',
        'return { accessor, readOnly, limit: Error.stackTraceLimit };',
      ].join('\n'),
    );
    expect(result.value).toEqual({ accessor: [0, 0], readOnly: 'at program.ts:7:19', limit: 10 });
  });

  it('keeps the limit when a program replaces the global Error', async () => {
    const result = await run(
      [
        'const RealError = Error;',
        'globalThis.Error = function Fake() {};',
        'try { await tools.fail({}); } catch (e) { return [e instanceof RealError, e.stack.split("\\n")[1].trim(), RealError.stackTraceLimit]; }',
      ].join('\n'),
    );
    expect(result.value).toEqual([true, 'at program.ts:3:19', 10]);
  });
});

describe('binding calls and the program\'s globals', () => {
  it('settles each call with its own result when the program replaced Promise', async () => {
    const result = await run(
      [
        'const RealPromise = Promise;',
        'globalThis.Promise = function Fake() {};',
        'const [a, b] = await RealPromise.all([tools.echo({ n: 1 }), tools.echo({ n: 2 })]);',
        'const c = await tools.echo({ n: 3 });',
        'return [a, b, c];',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('reports the value of a program that replaced Promise.resolve and Promise.prototype.then', async () => {
    const result = await run(
      [
        // Before the first await: the bootstrap takes the program's outcome right after that.
        'Promise.resolve = () => { throw new Error("hijacked resolve"); };',
        'Promise.prototype.then = function () { return this; };',
        'return await tools.echo({ n: 1 });',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({ n: 1 });
  });
});
