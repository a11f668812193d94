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
export { compileSchema, type SchemaValidator } from './schema-validator.js';
export {
  defineTool,
  type AnyToolDefinition,
  type DeferredContext,
  type ToolCallRef,
  type ToolCallResult,
  type ToolDefinition,
  type ToolExecContext,
  type ToolSchema,
} from './types.js';
