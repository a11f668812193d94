// The shared part of every runtime that runs programs in a sandboxed child process: options, the
// child, the run session, the in-memory conversations, the runtime itself. A language provider
// (src/languages/typescript/runtime/, src/languages/python/runtime/) supplies a ProcessLanguage and nothing more.

export { createProcessRuntime, type ProcessRuntime, type ProcessRuntimeSetup } from './process-runtime.js';
export type { PreparedProgram, ProcessLanguage } from './language.js';
export type { ChildCommand, ChildTexts } from './child-launch.js';
export type { SessionTexts } from './session-texts.js';
export { endedEarlyMessage, type ChildExit } from './child-exit.js';
export { memoryResetNote } from './in-memory.js';
export {
  resolveProcessRuntimeOptions,
  type ProcessEvent,
  type ProcessPoolOptions,
  type ProcessRuntimeConfig,
  type ProcessRuntimeLimits,
  type ProcessRuntimeOptions,
} from './options.js';
