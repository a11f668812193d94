export {
  ToolRuntime,
  RESERVED_TOOL_NAMES,
  compareNames,
  type BlockDecision,
  type ExecuteOptions,
  type ExecutionMode,
  type PostExecuteDecision,
  type ToolCall,
  type ToolFilter,
  type ToolGuard,
  type ToolResultEvent,
} from './tool-runtime.js';
export { compileSchema, schemaDialect, type SchemaDialect, type SchemaValidator } from './schema-validator.js';
export type { ParseIssue, ParseResult, ParsingSchema } from './parsing-schema.js';
export {
  defineTool,
  type ZodToolInit,
  type ZodToolOutput,
  type AnyToolDefinition,
  type DeferredContext,
  type ToolCallRef,
  type ToolCallResult,
  type ToolDefinition,
  type ToolExecContext,
  type ToolSchema,
} from './types.js';
export { createSpillStore, createTempSpillStore, type SpillRef, type SpillStore, type SpillStoreOptions, type SpillStream } from './spill.js';
export { spillPreview, spillToolResult, type SpilledResult } from './spill-preview.js';
