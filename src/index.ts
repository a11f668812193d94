// The library entry of ptc-harness.

export * from './errors.js';
export type { JsonObject, JsonPrimitive, JsonSchema, JsonValue } from './json.js';
export { checkJson, isJsonValue, renderJson } from './json.js';
export * from './context/index.js';
export * from './tools/index.js';
export { jsonSchemaToTs, renderTypeScriptSdk } from './codegen/index.js';
export { createHarness, fileToolsPlugin, type Harness, type HarnessOptions } from './harness.js';
export { createFileTools } from './builtin-tools/index.js';
