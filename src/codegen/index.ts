// Code generation: JSON Schema → TypeScript and Python types, and the SDK text the model programs
// against, one renderer per program language.

import { renderPythonSdk } from '../languages/python/sdk/render-python-sdk.js';
import { renderTypeScriptSdk } from '../languages/typescript/sdk/render-sdk.js';
import type { ToolSchema } from '../tools/types.js';

export {
  jsonSchemaToTs,
  renderSchemaType,
  MAX_DIRECT_REF_CHAIN,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  type HelperDeclaration,
  type RenderedSchemaType,
  type SchemaTypeOptions,
} from '../languages/typescript/sdk/json-schema-to-ts.js';
export { renderTypeScriptSdk } from '../languages/typescript/sdk/render-sdk.js';
export { renderPythonSdk, PYTHON_SDK_BINDING_DECLARATION } from '../languages/python/sdk/render-python-sdk.js';

/** The languages programs can be written in; a runtime's `language` is one of these. */
export type SdkLanguage = 'typescript' | 'python';

/** The SDK renderer of each language: the same tools, declared in the program's own language. */
export const SDK_RENDERERS: Readonly<Record<SdkLanguage, (tools: readonly ToolSchema[]) => string>> = Object.freeze({
  typescript: renderTypeScriptSdk,
  python: renderPythonSdk,
});

/** True when `language` has a renderer (a runtime with another language fails PTC assembly). */
export function isSdkLanguage(language: unknown): language is SdkLanguage {
  return typeof language === 'string' && Object.hasOwn(SDK_RENDERERS, language);
}
