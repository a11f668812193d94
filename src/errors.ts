// Stable error codes (README, "Error codes") and one error class per kind. Tests assert codes, never prose.

export const ERROR_CODES = [
  'UNKNOWN_TOOL',
  'INVALID_ARGS',
  'TOOL_FAILED',
  'EXCEPTION',
  'TIMEOUT',
  'ABORTED',
  'OUTPUT_LIMIT',
  'INVALID_OUTPUT',
  'MEMORY_LIMIT',
  'PROTOCOL',
  'STRIP_FAILED',
  'SANDBOX_UNAVAILABLE',
  'RUNTIME_UNAVAILABLE',
  'PERMISSION_DENIED',
  'CONFIG',
  'CONTEXT',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The plain shape an error takes inside results, logs and JSON output. */
export interface ErrorInfo {
  readonly code: ErrorCode;
  readonly message: string;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Base class of every error the harness raises on purpose. `code` is stable; `message` is for humans and models. */
export class HarnessError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'HarnessError';
  }

  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message };
  }
}

export class ConfigError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG', message, options);
    this.name = 'ConfigError';
  }
}

export class UnknownToolError extends HarnessError {
  constructor(message: string) {
    super('UNKNOWN_TOOL', message);
    this.name = 'UnknownToolError';
  }
}

export class InvalidArgsError extends HarnessError {
  constructor(message: string) {
    super('INVALID_ARGS', message);
    this.name = 'InvalidArgsError';
  }
}

export class ToolFailedError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TOOL_FAILED', message, options);
    this.name = 'ToolFailedError';
  }
}

/** A built-in tool refused a path or action outside the policy, or a hook/guard blocked the call. */
export class PermissionDeniedError extends HarnessError {
  constructor(message: string) {
    super('PERMISSION_DENIED', message);
    this.name = 'PermissionDeniedError';
  }
}

export class AbortedError extends HarnessError {
  constructor(message = 'The operation was aborted.') {
    super('ABORTED', message);
    this.name = 'AbortedError';
  }
}

export class SandboxUnavailableError extends HarnessError {
  constructor(message: string) {
    super('SANDBOX_UNAVAILABLE', message);
    this.name = 'SandboxUnavailableError';
  }
}

export class RuntimeUnavailableError extends HarnessError {
  constructor(message: string) {
    super('RUNTIME_UNAVAILABLE', message);
    this.name = 'RuntimeUnavailableError';
  }
}

/** The next request would not fit the model's context window and compaction could not make it fit (docs/compaction.md). */
export class ContextError extends HarnessError {
  constructor(message: string) {
    super('CONTEXT', message);
    this.name = 'ContextError';
  }
}

/** Turns anything thrown into an ErrorInfo; unknown throwables become `fallback` with their message. */
export function toErrorInfo(error: unknown, fallback: ErrorCode): ErrorInfo {
  if (error instanceof HarnessError) return error.toInfo();
  if (error instanceof Error) return { code: fallback, message: error.message || error.name };
  return { code: fallback, message: String(error) };
}
