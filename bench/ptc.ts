// PTC-mode figures for `npm run bench`: sub-calls through run_code and the full tool pipeline, and
// what the dispatch pool buys for concurrency-safe fan-out (and loses with maxParallelSubCalls: 1).

import { ptcPlugin } from '../src/ptc/plugin.js';
import type { NodeRuntime } from '../src/languages/typescript/runtime/index.js';
import { defineTool } from '../src/tools/types.js';
import { median } from './median.js';
import { ptcEchoContext } from './profile-runners.js';

const FAN_OUT_CALL_MS = 100;
const FAN_OUT_WIDTH = 10;

/** A ptc registry over `runtime` with an instant echo and a 100 ms concurrency-safe wait. */
function ptcRegistry(runtime: NodeRuntime, cwd: string, maxParallelSubCalls?: number) {
  const root = ptcEchoContext(runtime);
  root.tools.register(
    defineTool<Record<string, never>, null>({
      name: 'wait',
      description: `Waits ${FAN_OUT_CALL_MS} ms.`,
      inputSchema: { type: 'object' },
      isConcurrencySafe: true,
      execute: () => new Promise((resolve) => setTimeout(() => resolve(null), FAN_OUT_CALL_MS)),
    }),
  );
  root.plugin(ptcPlugin, { cwd, ...(maxParallelSubCalls !== undefined ? { maxParallelSubCalls } : {}) });
  let n = 0;
  /** Runs a program through run_code and returns the number it returns (its own timing). */
  const timed = async (code: string): Promise<number> => {
    const result = await root.tools.execute('run_code', { code, description: 'bench' }, { id: `bench${++n}` });
    const value = result.value as { result?: unknown } | undefined;
    if (result.isError || typeof value?.result !== 'number') throw new Error(`bench program failed: ${result.content}`);
    return value.result;
  };
  return { timed, dispose: () => root.dispose() };
}

export async function ptcRows(runtime: NodeRuntime, cwd: string, calls: number): Promise<string[][]> {
  const rows: string[][] = [];
  const pooled = ptcRegistry(runtime, cwd);
  const serial = ptcRegistry(runtime, cwd, 1);
  try {
    const rate = async (width: number) => {
      const ms = await pooled.timed(
        `const n = ${calls}, width = ${width}; const t = performance.now();\n` +
          'for (let i = 0; i < n; i += width) await Promise.all(Array.from({ length: width }, (_, k) => tools.echo({ x: i + k })));\n' +
          'return performance.now() - t;',
      );
      return calls / (ms / 1000);
    };
    const rates = async (width: number) => median([await rate(width), await rate(width), await rate(width)]);
    const sequential = await rates(1);
    const inFlight = await rates(10);
    rows.push(['run_code sub-calls through the full pipeline, sequential', `${Math.round(sequential).toLocaleString('en-US')} /s`, '']);
    rows.push(['run_code sub-calls through the full pipeline, 10 in flight', `${Math.round(inFlight).toLocaleString('en-US')} /s`, '']);

    const one = 'const t = performance.now(); await tools.wait({}); return performance.now() - t;';
    const fan = `const t = performance.now(); await Promise.all(Array.from({ length: ${FAN_OUT_WIDTH} }, () => tools.wait({}))); return performance.now() - t;`;
    const sample = async (registry: typeof pooled, code: string) => median([await registry.timed(code), await registry.timed(code), await registry.timed(code)]);
    const oneMs = await sample(pooled, one);
    const fanMs = await sample(pooled, fan);
    const fanSerialMs = await sample(serial, fan);
    rows.push([`one ${FAN_OUT_CALL_MS} ms concurrency-safe call (baseline of the next two rows)`, `${oneMs.toFixed(1)} ms`, '']);
    rows.push([
      `fan-out of ${FAN_OUT_WIDTH} such calls under Promise.all (maxParallelSubCalls 10)`,
      `${fanMs.toFixed(1)} ms`,
      `${(fanMs / oneMs).toFixed(2)} × one call`,
    ]);
    rows.push([
      `the same fan-out with maxParallelSubCalls 1`,
      `${fanSerialMs.toFixed(1)} ms`,
      `${(fanSerialMs / oneMs).toFixed(2)} × one call`,
    ]);
  } finally {
    await pooled.dispose();
    await serial.dispose();
  }
  return rows;
}
