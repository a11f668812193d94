// The words and small helpers of a run session's messages: what a provider says in its own idiom
// (SessionTexts), and the pieces every message shares (the output limit, a child-chosen name cut
// short, a thrown value as text).

import type { ErrorInfo } from '../errors.js';
import type { BindingFunction, ResolvedRunSpec } from '../ptc-runtime/types.js';
import type { ChildExit } from './child-exit.js';

/** What a language provider puts into its sessions' messages. */
export interface SessionTexts {
  /** What the program awaits, in the TIMEOUT and queued-replies messages: `binding calls`, `tool calls`. */
  readonly calls: string;
  /** How to use less memory, in the MEMORY_LIMIT message: `stream it`, `iterate`. */
  readonly memoryHint: string;
  /**
   * Why the process ended before the program returned. `memoryMb` is the runtime's budget: an
   * interpreter with its own heap limit can tell a real out-of-memory abort from a forged one.
   */
  exitError(exit: ChildExit, memoryMb: number): ErrorInfo;
}

/** The binding function for `global[member]`, own members only (a null-prototype table from resolve). */
export function lookupBinding(spec: ResolvedRunSpec, global: string, member: string): BindingFunction | undefined {
  const binding = spec.bindings.find((candidate) => candidate.global === global);
  if (binding === undefined || !Object.prototype.hasOwnProperty.call(binding.functions, member)) return undefined;
  const fn: unknown = binding.functions[member];
  return typeof fn === 'function' ? (fn as BindingFunction) : undefined;
}

/** An error's text for a message, whatever was thrown (a getter on it may throw too). */
export function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'an unprintable error';
  }
}

/** A child-chosen name inside a message: short enough to never dominate it. */
export function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export function outputLimitError(maxOutputBytes: number): ErrorInfo {
  return {
    code: 'OUTPUT_LIMIT',
    message:
      `the program's output exceeded ${maxOutputBytes} bytes (logs plus the returned value); ` +
      'log less (counts, the first items, a summary) and return only what is needed',
  };
}

export function timeoutError(timeoutMs: number, calls: string): ErrorInfo {
  return {
    code: 'TIMEOUT',
    message: `the program did not finish within ${timeoutMs} ms (the deadline includes awaited ${calls}); do less per program or allow more time`,
  };
}

export function memoryLimitError(limitBytes: number, residentBytes: number, hint: string): ErrorInfo {
  return {
    code: 'MEMORY_LIMIT',
    message:
      `the program's process used more than its ${mib(limitBytes)} MiB memory limit (${mib(residentBytes)} MiB resident); ` +
      `process the data in smaller pieces (${hint}, or keep only what you need)`,
  };
}

/**
 * The whole tree over the limit: `tree` is the watchdog's sum where it measured one, undefined where
 * the kernel's OOM kill in the memory group said so.
 */
export function treeMemoryLimitError(limitBytes: number, tree: { readonly bytes: number; readonly processes: number } | undefined, hint: string): ErrorInfo {
  const seen = tree === undefined ? 'the kernel ended a process of the tree at the limit' : `${mib(tree.bytes)} MiB resident in ${tree.processes} processes`;
  return {
    code: 'MEMORY_LIMIT',
    message:
      `the program's process tree (the program and every process it started) used more than its ${mib(limitBytes)} MiB memory limit (${seen}); ` +
      `process the data in smaller pieces (${hint}, fewer or smaller child processes, or keep only what you need)`,
  };
}

function mib(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}
