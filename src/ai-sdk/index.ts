// The `ptc-harness/ai-sdk` entry: a harness's tools as Vercel AI SDK v6 tools (docs/ai-sdk.md).

export { createAiSdkTools, type AiSdkToolkit, type AiSdkToolsOptions, type HarnessAiTool } from './harness-tools.js';
export { createAiSdkToolsFromList, type OwnedAiSdkToolkit, type ToolListOptions } from './tool-list.js';
export { isHarnessToolOutput, modelOutputOf, type HarnessModelOutput, type HarnessToolOutput } from './tool-output.js';
