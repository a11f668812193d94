// `ptc-harness/runtime`: PTC mode's parts: the code runtimes (Node and Python), `run_code` and its
// dispatch pool, the generated SDKs and their prompt sections, the language packs, and `ptc exec` as
// a call (docs/ptc-mode.md, docs/runtime-lifecycle.md, docs/language-packs.md).

export * from '../ptc-runtime/index.js';
export { createNodeRuntime, RUNTIME_GLOBALS, type NodeRuntime, type NodeRuntimeOptions, type NodeRuntimeLimits, type NodeRuntimePoolOptions } from '../languages/typescript/runtime/index.js';
export { createPythonRuntime, type PythonRuntime, type PythonRuntimeOptions } from '../languages/python/runtime/index.js';
export { createRunCodeTool, ProgramFailedError, RUN_CODE_DESCRIPTION, renderRunCodeValue, type PtcDispatchSettle, type PtcDispatchStart, type PtcRunEvent, type RunCodeArgs, type RunCodeValue } from '../ptc/run-code.js';
export { DispatchPool, DEFAULT_MAX_PARALLEL_SUB_CALLS } from '../ptc/dispatch-pool.js';
export { ptcPlugin, type PtcPluginConfig } from '../ptc/plugin.js';
export { renderSdkSection, renderPtcOnlySection, renderSdkInstructions, SDK_SECTION_ID, PTC_ONLY_SECTION_ID, type PromptExample } from '../ptc/prompt-sections.js';
export { execProgram, type ExecDispatch, type ExecJson, type ExecProgramOptions, type ExecProgramResult } from '../ptc/exec-program.js';
export { jsonSchemaToTs, renderPythonSdk, renderTypeScriptSdk, SDK_RENDERERS, type SdkLanguage } from '../languages/index.js';
// A language of one's own: a pack registered into the table, and the shared process runtime to build on.
export { languagePack, languagePacks, registerLanguagePack, type LanguagePack, type PackPrompt, type PackSdk } from '../languages/index.js';
export { packFile } from '../languages/pack-file.js';
export { createProcessRuntime, endedEarlyMessage, resolveProcessRuntimeOptions, type ChildCommand, type ProcessLanguage, type ProcessRuntimeOptions } from '../ptc-runtime-process/index.js';
