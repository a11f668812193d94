// The timeout descriptor a runtime advertises (docs/ptc-mode.md: run_code's timeoutMs is bounded by it),
// and the one check every runtime applies to a requested deadline.

import { ConfigError } from '../errors.js';
import type { TimeoutDescriptor } from './types.js';

/** Builds a validated descriptor; `field` names the option in error messages. */
export function createTimeoutDescriptor(
  input: { readonly defaultMs: number; readonly minMs: number; readonly maxMs: number },
  field = 'timeout',
): TimeoutDescriptor {
  for (const key of ['defaultMs', 'minMs', 'maxMs'] as const) {
    const value = input[key];
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ConfigError(`${field}.${key} must be a positive integer (milliseconds), got ${String(value)}.`);
    }
  }
  if (input.minMs > input.maxMs) {
    throw new ConfigError(`${field}.minMs (${input.minMs}) must not exceed ${field}.maxMs (${input.maxMs}).`);
  }
  if (input.defaultMs < input.minMs || input.defaultMs > input.maxMs) {
    throw new ConfigError(
      `${field}.defaultMs (${input.defaultMs}) must lie within ${field}.minMs..${field}.maxMs (${input.minMs}..${input.maxMs}).`,
    );
  }
  return Object.freeze({ defaultMs: input.defaultMs, minMs: input.minMs, maxMs: input.maxMs });
}

/** The deadline to use: the descriptor's default when `value` is undefined, else `value` if it is an integer in range. */
export function resolveTimeoutMs(descriptor: TimeoutDescriptor, value: unknown, field = 'timeoutMs'): number {
  if (value === undefined) return descriptor.defaultMs;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ConfigError(`${field} must be an integer number of milliseconds, got ${JSON.stringify(value) ?? String(value)}.`);
  }
  if (value < descriptor.minMs || value > descriptor.maxMs) {
    throw new ConfigError(`${field} must be between ${descriptor.minMs} and ${descriptor.maxMs} ms, got ${value}.`);
  }
  return value;
}
