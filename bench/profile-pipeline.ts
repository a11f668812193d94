// The tool pipeline's own cost per sequential call, in process and without a child: CPU µs
// (process.cpuUsage, so a preempted turn does not count) per `tools.execute('echo')` made the way
// run_code makes its sub-calls (a parent reference, a shared signal, its own id), with one
// `tools/result` listener as a session log has (docs/benchmarks.md, "Round-trip profile").
//
//   node --import ./scripts/ts-register.mjs bench/profile-pipeline.ts [--calls 50000] [--rounds 9] [--tree <dir>]
//     --tree <dir>   load src/ from another checkout of this repository (a copy of the tree before a
//                    change), to interleave before and after in one session

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './median.js';

const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string', default: '50000' },
    rounds: { type: 'string', default: '9' },
    tree: { type: 'string', default: resolve(import.meta.dirname, '..') },
  },
});
const CALLS = Number(flags.calls);
const ROUNDS = Number(flags.rounds);
const src = (file: string): string => pathToFileURL(resolve(flags.tree, 'src', file)).href;

const { createContext } = (await import(src('context/context.js'))) as typeof import('../src/context/context.js');
const { ToolRuntime } = (await import(src('tools/tool-runtime.js'))) as typeof import('../src/tools/tool-runtime.js');
const { defineTool } = (await import(src('tools/types.js'))) as typeof import('../src/tools/types.js');

const root = createContext();
root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
root.tools.register(
  defineTool<{ x: number }, number>({
    name: 'echo',
    description: 'Returns x.',
    inputSchema: { type: 'object', properties: { x: {} }, required: ['x'] },
    isConcurrencySafe: true,
    execute: ({ x }) => x,
  }),
);
root.on('tools/result', () => {});
const parent = Object.freeze({ id: 'profile1', name: 'run_code' });
const signal = new AbortController().signal;

const perCall: number[] = [];
let n = 0;
for (let round = 0; round < ROUNDS; round++) {
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await root.tools.execute('echo', { x: i }, { parent, signal, id: `profile1:ptc:${++n}` });
  const used = process.cpuUsage(start);
  perCall.push((used.user + used.system) / CALLS);
}
await root.dispose();
const sorted = [...perCall].sort((a, b) => a - b);
console.log(
  `pipeline, in process (${flags.tree}): ${median(perCall).toFixed(2)} µs CPU per call, median of ${ROUNDS} rounds of ${CALLS} (min ${(sorted[0] ?? 0).toFixed(2)})`,
);
