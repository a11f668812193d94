// The Node process provider of the ptc-runtime seam.

export { createNodeRuntime, RUNTIME_GLOBALS, type NodeRuntime } from './node-runtime.js';
export type { NodeRuntimeConfig, NodeRuntimeLimits, NodeRuntimeOptions, NodeRuntimePoolOptions } from './options.js';
export type { ProcessEvent as ChildProcessEvent } from '../../../ptc-runtime-process/options.js';
