// Code generation: JSON Schema → TypeScript types, and the SDK text the model programs against.

export {
  jsonSchemaToTs,
  renderSchemaType,
  MAX_DIRECT_REF_CHAIN,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  type HelperDeclaration,
  type RenderedSchemaType,
  type SchemaTypeOptions,
} from './json-schema-to-ts.js';
export { renderTypeScriptSdk } from './render-sdk.js';
