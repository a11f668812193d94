import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveRunRequest, type ResolveRequestOptions } from './resolve-request.js';
import { createTimeoutDescriptor } from './timeout.js';
import type { BindingFunction, RunRequest } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-resolve-'));
const file = join(dir, 'file.txt');
writeFileSync(file, 'x');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const options: ResolveRequestOptions = {
  timeout: createTimeoutDescriptor({ defaultMs: 1000, minMs: 100, maxMs: 5000 }),
  reservedGlobals: ['console'],
  maxProgramBytes: 64,
};
const fn: BindingFunction = async () => null;
const base: RunRequest = { program: 'return 1', cwd: dir };

function resolve(request: unknown) {
  return resolveRunRequest(request as RunRequest, options);
}

describe('resolveRunRequest', () => {
  it('fills the defaults', async () => {
    const spec = await resolve(base);
    expect(spec).toEqual({ program: 'return 1', bindings: [], cwd: dir, timeoutMs: 1000, policy: { read: [], write: [], network: false, protect: [], readOnlyWorkspace: false } });
    expect(Object.isFrozen(spec)).toBe(true);
  });

  it('resolves policy paths against cwd and keeps signal and timeout', async () => {
    const signal = new AbortController().signal;
    const spec = await resolve({ ...base, timeoutMs: 250, signal, policy: { allowRead: ['data', '/opt/x'], allowWrite: ['/tmp/out'], network: true } });
    expect(spec.timeoutMs).toBe(250);
    expect(spec.signal).toBe(signal);
    expect(spec.policy).toEqual({ read: [join(dir, 'data'), '/opt/x'], write: ['/tmp/out'], network: true, protect: [], readOnlyWorkspace: false });
  });

  it('takes any member name as an own member of a null-prototype table', async () => {
    const functions = Object.defineProperty({ constructor: fn, 'my-tool': fn, toString: fn }, '__proto__', {
      value: fn,
      enumerable: true,
    }) as Record<string, BindingFunction>;
    const spec = await resolve({ ...base, bindings: [{ global: 'tools', functions, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }] });
    const table = spec.bindings[0]?.functions as Record<string, BindingFunction>;
    expect(Object.getPrototypeOf(table)).toBeNull();
    expect(Object.keys(table).sort()).toEqual(['__proto__', 'constructor', 'my-tool', 'toString']);
    expect(table['__proto__']).toBe(fn);
  });

  it('lets namespaces share one error class when it is the same class', async () => {
    const errorClass = { name: 'ToolCallError', memberNameProperty: 'toolName' };
    const spec = await resolve({ ...base, bindings: [{ global: 'a', functions: {}, errorClass }, { global: 'b', functions: {}, errorClass }] });
    expect(spec.bindings).toHaveLength(2);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no cwd', { cwd: undefined }, /^cwd is required/],
    ['relative cwd', { cwd: 'work' }, /^cwd must be an absolute path/],
    ['missing cwd', { cwd: '/definitely/not/here' }, /^cwd .* does not exist/],
    ['file cwd', { cwd: file }, /^cwd .* is not a directory/],
    ['program not a string', { program: 42 }, /^program must be a string/],
    ['program too large', { program: 'x'.repeat(65) }, /^program is 65 bytes; the limit is 64/],
    ['timeout too small', { timeoutMs: 99 }, /^timeoutMs must be between 100 and 5000/],
    ['timeout too large', { timeoutMs: 5001 }, /^timeoutMs must be between/],
    ['fractional timeout', { timeoutMs: 150.5 }, /^timeoutMs must be an integer/],
    ['signal not a signal', { signal: {} }, /^signal must be an AbortSignal/],
    ['unknown request field', { timeout: 5 }, /^request has an unknown field "timeout"/],
    ['policy not an object', { policy: [] }, /^policy must be an object/],
    ['unknown policy field', { policy: { allow_read: [] } }, /^policy has an unknown field "allow_read"/],
    ['allowRead not an array', { policy: { allowRead: '/x' } }, /^policy\.allowRead must be an array/],
    ['empty path', { policy: { allowWrite: [''] } }, /^policy\.allowWrite\[0\] must be a non-empty path/],
    ['network not boolean', { policy: { network: 'yes' } }, /^policy\.network must be a boolean/],
    ['bindings not an array', { bindings: {} }, /^bindings must be an array/],
    ['global not an identifier', { bindings: [{ global: 'my-tools', functions: {} }] }, /^bindings\[0\]\.global "my-tools" is not a portable identifier/],
    ['global reserved word', { bindings: [{ global: 'class', functions: {} }] }, /^bindings\[0\]\.global "class" is a reserved word/],
    ['global the runtime owns', { bindings: [{ global: 'console', functions: {} }] }, /^bindings\[0\]\.global: "console" is a global the runtime defines/],
    ['duplicate global', { bindings: [{ global: 't', functions: {} }, { global: 't', functions: {} }] }, /^bindings\[1\]\.global: "t" is already used/],
    ['member not a function', { bindings: [{ global: 't', functions: { x: 1 } }] }, /^bindings\[0\]\.functions\["x"\] must be a function/],
    ['functions missing', { bindings: [{ global: 't' }] }, /^bindings\[0\]\.functions must be an object/],
    ['unknown namespace field', { bindings: [{ global: 't', functions: {}, name: 'x' }] }, /^bindings\[0\] has an unknown field "name"/],
    ['errorClass name not an identifier', { bindings: [{ global: 't', functions: {}, errorClass: { name: 'Tool Error', memberNameProperty: 'x' } }] }, /^bindings\[0\]\.errorClass\.name "Tool Error" is not a portable identifier/],
    ['errorClass property empty', { bindings: [{ global: 't', functions: {}, errorClass: { name: 'E', memberNameProperty: '' } }] }, /^bindings\[0\]\.errorClass\.memberNameProperty must be a non-empty string/],
    ['errorClass property reserved', { bindings: [{ global: 't', functions: {}, errorClass: { name: 'E', memberNameProperty: 'message' } }] }, /must not be "message"/],
    ['errorClass clashes with a global', { bindings: [{ global: 't', functions: {} }, { global: 'u', functions: {}, errorClass: { name: 't', memberNameProperty: 'x' } }] }, /^bindings\[1\]\.errorClass\.name: "t" is already used/],
    ['errorClass shared with another property', { bindings: [{ global: 't', functions: {}, errorClass: { name: 'E', memberNameProperty: 'a' } }, { global: 'u', functions: {}, errorClass: { name: 'E', memberNameProperty: 'b' } }] }, /different memberNameProperty/],
  ])('rejects %s with CONFIG naming the field', async (_name, patch, message) => {
    await expect(resolve({ ...base, ...patch })).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringMatching(message) });
  });

  it('rejects a request that is not an object', async () => {
    await expect(resolve(null)).rejects.toMatchObject({ code: 'CONFIG' });
  });
});
