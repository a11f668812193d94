import { describe, expect, it } from 'vitest';
import { DEFAULT_MEMORY_MB, DEFAULT_POOL_MAX_SIZE, DEFAULT_POOL_SIZE, DEFAULT_TIMEOUT_MS, MAX_OUTPUT_BYTES, RSS_HEADROOM_MB } from '../../../limits.js';
import { resolveNodeRuntimeOptions, type NodeRuntimeOptions } from './options.js';

describe('resolveNodeRuntimeOptions', () => {
  it('fills every default from src/limits.ts', () => {
    const config = resolveNodeRuntimeOptions();
    expect(config.sandbox).toBe('auto');
    expect(config.timeout.defaultMs).toBe(DEFAULT_TIMEOUT_MS);
    expect(config.maxOutputBytes).toBe(MAX_OUTPUT_BYTES);
    expect(config.memoryMb).toBe(DEFAULT_MEMORY_MB);
    expect(config.rssLimitMb).toBe(DEFAULT_MEMORY_MB + RSS_HEADROOM_MB);
    expect(config.pool).toMatchObject({ size: DEFAULT_POOL_SIZE });
    expect(config.processes).toBe(true);
    expect(config.nodePath).toBe(process.execPath);
  });

  it('takes overrides; pool false or size 0 turns the pool off', () => {
    const config = resolveNodeRuntimeOptions({ limits: { memoryMb: 64, maxOutputBytes: 10 }, pool: { size: 0 }, timeout: { minMs: 10 } });
    expect(config).toMatchObject({ memoryMb: 64, rssLimitMb: 64 + RSS_HEADROOM_MB, maxOutputBytes: 10, pool: false });
    expect(config.timeout.minMs).toBe(10);
    expect(resolveNodeRuntimeOptions({ pool: false }).pool).toBe(false);
    expect(resolveNodeRuntimeOptions({ pool: { size: 1, refill: false } }).pool).toMatchObject({ size: 1, refill: false });
    expect(resolveNodeRuntimeOptions().pool).toMatchObject({ refill: true, maxSize: DEFAULT_POOL_MAX_SIZE });
    // The ceiling is never below the floor.
    expect(resolveNodeRuntimeOptions({ pool: { size: 4, maxSize: 3 } }).pool).toMatchObject({ size: 4, maxSize: 4 });
  });

  it('turns tracing on with onPhases', () => {
    const sink = () => undefined;
    expect(resolveNodeRuntimeOptions({ onPhases: sink }).onPhases).toBe(sink);
    expect(() => resolveNodeRuntimeOptions({ onPhases: 1 } as unknown as NodeRuntimeOptions)).toThrow(/onPhases must be a function/);
  });

  it.each<[string, unknown, RegExp]>([
    ['sandbox', { sandbox: 'strict' }, /^sandbox must be/],
    ['unknown option', { sandboxMode: 'off' }, /^options has an unknown field "sandboxMode"/],
    ['unknown limit', { limits: { outputBytes: 1 } }, /^limits has an unknown field "outputBytes"/],
    ['negative limit', { limits: { maxOutputBytes: -1 } }, /^limits\.maxOutputBytes must be an integer >= 1/],
    ['tiny memory', { limits: { memoryMb: 4 } }, /^limits\.memoryMb must be an integer >= 16/],
    ['frame smaller than a program', { limits: { maxFrameBytes: 2048, maxProgramBytes: 1024 } }, /^limits\.maxFrameBytes/],
    ['pool size', { pool: { size: 1.5 } }, /^pool\.size must be an integer >= 0/],
    ['pool refill', { pool: { refill: 'no' } }, /^pool\.refill must be a boolean/],
    ['pool maxSize', { pool: { maxSize: 0 } }, /^pool\.maxSize must be an integer >= 1/],
    ['timeout', { timeout: { defaultMs: 10, minMs: 100 } }, /^timeout\.defaultMs/],
    ['processes', { processes: 'no' }, /^processes must be a boolean/],
    ['nodePath', { nodePath: 'node' }, /^nodePath must be an absolute path/],
  ])('rejects a bad %s with CONFIG', (_name, options, message) => {
    expect(() => resolveNodeRuntimeOptions(options as NodeRuntimeOptions)).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringMatching(message) }),
    );
  });
});
