// The program languages (docs/language-packs.md): the LanguagePack interface, the table of packs
// and, for library users, each shipped pack's SDK renderer by its old names.

import { pythonPack } from './python/pack.js';
import { typescriptPack } from './typescript/pack.js';
import type { ToolSchema } from '../tools/types.js';

export type { LanguagePack, PackPrompt, PackSdk, PromptExample } from './language-pack.js';
export { DEFAULT_LANGUAGE, languagePack, languagePackOr, languagePacks, packOfFile, packOfFlag, registerLanguagePack } from './table.js';
export {
  jsonSchemaToTs,
  renderSchemaType,
  MAX_DIRECT_REF_CHAIN,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  type HelperDeclaration,
  type RenderedSchemaType,
  type SchemaTypeOptions,
} from './typescript/sdk/json-schema-to-ts.js';
export { renderTypeScriptSdk } from './typescript/sdk/render-sdk.js';
export { renderPythonSdk, PYTHON_SDK_BINDING_DECLARATION } from './python/sdk/render-python-sdk.js';

/** The shipped languages; a runtime's `language` is one of these or a registered pack's id. */
export type SdkLanguage = 'typescript' | 'python';

/** The SDK renderer of each shipped language (the packs' `sdk.render`). */
export const SDK_RENDERERS: Readonly<Record<SdkLanguage, (tools: readonly ToolSchema[]) => string>> = Object.freeze({
  typescript: typescriptPack.sdk.render,
  python: pythonPack.sdk.render,
});
