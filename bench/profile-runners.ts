// The two ways the round-trip profiles run a program (bench/profile-roundtrip.ts, bench/profile-split.ts):
// with `tools.echo` as a bare binding of the runtime, or as a registered tool called through
// run_code, the dispatch pool and the full tool pipeline.

import { createContext } from '../src/context/context.js';
import type { JsonValue } from '../src/json.js';
import type { BindingFunction } from '../src/ptc-runtime/index.js';
import { ptcPlugin } from '../src/ptc/plugin.js';
import type { NodeRuntime } from '../src/languages/typescript/runtime/index.js';
import { ToolRuntime } from '../src/tools/tool-runtime.js';
import { defineTool } from '../src/tools/types.js';

/** Runs one program body and resolves to its value, as the caller's profile expects it. */
export type Runner<T> = (code: string) => Promise<T>;

/** `tools.echo` as a bare binding; `echo` replaces the plain echo (a profile's timestamps). */
export function bareRunner<T>(runtime: NodeRuntime, cwd: string, echo: BindingFunction = async (args) => args): Runner<T> {
  return async (code) => {
    const result = await runtime.run(await runtime.resolve({ program: code, cwd, bindings: [{ global: 'tools', functions: { echo } }] }));
    if (result.error !== undefined) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.value as unknown as T;
  };
}

/** A ptc-mode container over `runtime` with `echo {x}` registered (concurrency-safe); `execute` replaces the plain echo. */
export function ptcEchoContext(runtime: NodeRuntime, execute: (args: { x: JsonValue }) => JsonValue = ({ x }) => x) {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
  root.provide('ptcRuntime', runtime);
  root.tools.register(
    defineTool<{ x: JsonValue }, JsonValue>({
      name: 'echo',
      description: 'Returns x.',
      inputSchema: { type: 'object', properties: { x: {} }, required: ['x'] },
      isConcurrencySafe: true,
      execute,
    }),
  );
  return root;
}

/** `tools.echo` as a registered tool behind run_code; `execute` replaces the plain echo. */
export function pipelineRunner<T>(
  runtime: NodeRuntime,
  cwd: string,
  execute: (args: { x: JsonValue }) => JsonValue = ({ x }) => x,
): { run: Runner<T>; dispose: () => Promise<void> } {
  const root = ptcEchoContext(runtime, execute);
  root.plugin(ptcPlugin, { cwd });
  let n = 0;
  const run: Runner<T> = async (code) => {
    const result = await root.tools.execute('run_code', { code, description: 'profile' }, { id: `profile${++n}` });
    const value = result.value as { result?: unknown } | undefined;
    if (result.isError) throw new Error(result.content);
    return value?.result as T;
  };
  return { run, dispose: () => root.dispose() };
}
