// The control channel on fd 3: one JSON object per LF-terminated line, one discriminated union of
// frames. The host parses every child frame as hostile input (the program can write to fd 3 too);
// the child trusts the host's frames.

import { jsonTextTooDeep, type JsonValue } from '../json.js';
import { MAX_FRAME_DEPTH } from '../limits.js';

/** One binding namespace as the child builds it: member names only, the functions stay on the host. */
export interface ChildBinding {
  readonly global: string;
  readonly members: readonly string[];
  readonly errorClass: { readonly name: string; readonly memberNameProperty: string } | null;
  /** BindingNamespace.argumentList: send all the arguments as one array. */
  readonly argumentList?: boolean;
}

/** Limits the child applies cooperatively; the host enforces each one again on what it receives. */
export interface ChildLimits {
  readonly maxOutputBytes: number;
  readonly maxFrameBytes: number;
  readonly maxPendingCalls: number;
  readonly maxPendingArgsBytes: number;
  /** Nesting of a returned value or call argument (the frame around it takes one more level). */
  readonly maxValueDepth: number;
  /** An error message the child reports; longer ones are cut with a note (src/error-text.ts). */
  readonly maxErrorMessageBytes: number;
}

/** host -> child: run this program (the stripped wrapper from strip.ts). Sent once. */
export interface RunFrame {
  readonly type: 'run';
  readonly code: string;
  readonly bindings: readonly ChildBinding[];
  readonly limits: ChildLimits;
  /** In-memory mode: run in the kept namespace, and keep the process after `done`. */
  readonly keep?: boolean;
  /**
   * In-memory mode, the first run of a kept process only: the key its bootstrap puts in every later
   * `call` and `done` frame, so frames another writer puts on fd 3 (code an earlier program left
   * running, a worker thread) are refused (docs/in-memory-mode.md, "What a later run can trust").
   */
  readonly key?: string;
}

/** host -> child: the outcome of binding call `id`. */
export type ResultFrame =
  | { readonly type: 'result'; readonly id: number; readonly ok: true; readonly value?: JsonValue }
  | { readonly type: 'result'; readonly id: number; readonly ok: false; readonly error: { readonly message: string; readonly code?: string } };

/** child -> host: the bootstrap is listening; sent once, before anything else. */
export interface ReadyFrame {
  readonly type: 'ready';
}

/** child -> host: call `global[member](args)`. Ids are 1, 2, 3... in order. */
export interface CallFrame {
  readonly type: 'call';
  readonly id: number;
  readonly global: string;
  readonly member: string;
  readonly args: JsonValue;
  /** The kept process's channel key (RunFrame.key); absent in a stateless run. */
  readonly key?: string;
}

/** child -> host: one console call or one line of raw stdout/stderr output. */
export interface LogFrame {
  readonly type: 'log';
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

/** Failures the child may report itself; every other code is the host's to decide. */
export type ChildErrorCode = 'EXCEPTION' | 'INVALID_OUTPUT' | 'OUTPUT_LIMIT';
export const CHILD_ERROR_CODES: readonly ChildErrorCode[] = ['EXCEPTION', 'INVALID_OUTPUT', 'OUTPUT_LIMIT'];

/** child -> host: the program settled. Anything after it is ignored. */
export type DoneFrame = (
  | { readonly type: 'done'; readonly ok: true; readonly value?: JsonValue }
  | { readonly type: 'done'; readonly ok: false; readonly error: { readonly code: ChildErrorCode; readonly message: string } }
) & {
  /** The kept process's channel key (RunFrame.key); absent in a stateless run. */
  readonly key?: string;
};

export type HostFrame = RunFrame | ResultFrame;
export type ChildFrame = ReadyFrame | CallFrame | LogFrame | DoneFrame;
export type Frame = HostFrame | ChildFrame;

/** One frame as a line (JSON has no raw LF, so the line is unambiguous). */
export function encodeFrame(frame: Frame): string {
  return JSON.stringify(frame) + '\n';
}

/**
 * The line of `{ type: 'result', id, ok: true, value }` given the value's JSON text: the same text
 * as encodeFrame, without serialising the frame object around the value (docs/control-channel.md,
 * "Hot path").
 */
export function encodeValueResult(id: number, valueJson: string): string {
  return `{"type":"result","id":${id},"ok":true,"value":${valueJson}}\n`;
}

export type ParsedChildFrame = { readonly ok: true; readonly frame: ChildFrame } | { readonly ok: false; readonly reason: string };

const MAX_CALL_ID = Number.MAX_SAFE_INTEGER;

/**
 * Parses and shape-checks one line from the child. State (ids, bindings, order) is the session's job.
 * Nesting is bounded before parsing, so no host code ever recurses over a deeper value
 * (docs/control-channel.md).
 */
export function parseChildFrame(line: string, maxDepth: number = MAX_FRAME_DEPTH): ParsedChildFrame {
  if (jsonTextTooDeep(line, maxDepth)) return fail(`nested deeper than ${maxDepth} levels of arrays and objects`);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return fail(`not JSON: ${preview(line)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(`not a JSON object: ${preview(line)}`);
  const frame = value as Record<string, unknown>;
  switch (frame['type']) {
    case 'ready':
      return onlyKeys(frame, ['type']) ?? { ok: true, frame: { type: 'ready' } };
    case 'call': {
      const bad = onlyKeys(frame, ['type', 'id', 'global', 'member', 'args', 'key']) ?? badKey(frame);
      if (bad !== undefined) return bad;
      const { id, global, member, args } = frame;
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_CALL_ID) return fail('call id must be a positive integer');
      if (typeof global !== 'string' || typeof member !== 'string') return fail('call global and member must be strings');
      if (!('args' in frame)) return fail('call without args');
      return { ok: true, frame: { type: 'call', id, global, member, args: args as JsonValue, ...keyOf(frame) } };
    }
    case 'log': {
      const bad = onlyKeys(frame, ['type', 'stream', 'text']);
      if (bad !== undefined) return bad;
      const { stream, text } = frame;
      if (stream !== 'stdout' && stream !== 'stderr') return fail('log stream must be "stdout" or "stderr"');
      if (typeof text !== 'string') return fail('log text must be a string');
      return { ok: true, frame: { type: 'log', stream, text } };
    }
    case 'done': {
      if (frame['ok'] === true) {
        const bad = onlyKeys(frame, ['type', 'ok', 'value', 'key']) ?? badKey(frame);
        if (bad !== undefined) return bad;
        return {
          ok: true,
          frame: 'value' in frame ? { type: 'done', ok: true, value: frame['value'] as JsonValue, ...keyOf(frame) } : { type: 'done', ok: true, ...keyOf(frame) },
        };
      }
      if (frame['ok'] === false) {
        const bad = onlyKeys(frame, ['type', 'ok', 'error', 'key']) ?? badKey(frame);
        if (bad !== undefined) return bad;
        const error = frame['error'];
        if (typeof error !== 'object' || error === null || Array.isArray(error)) return fail('done error must be an object');
        const { code, message } = error as Record<string, unknown>;
        if (!CHILD_ERROR_CODES.includes(code as ChildErrorCode)) return fail(`done error code ${preview(JSON.stringify(code) ?? '')} is not one the child may report`);
        if (typeof message !== 'string') return fail('done error message must be a string');
        if (Object.keys(error).length !== 2) return fail('done error has unknown fields');
        return { ok: true, frame: { type: 'done', ok: false, error: { code: code as ChildErrorCode, message }, ...keyOf(frame) } };
      }
      return fail('done ok must be a boolean');
    }
    default:
      return fail(`unknown frame type ${preview(JSON.stringify(frame['type']) ?? 'undefined')}`);
  }
}

function onlyKeys(frame: Record<string, unknown>, allowed: readonly string[]): ParsedChildFrame | undefined {
  for (const key of Object.keys(frame)) {
    if (!allowed.includes(key)) return fail(`unknown field ${preview(JSON.stringify(key))} in a ${String(frame['type'])} frame`);
  }
  return undefined;
}

function badKey(frame: Record<string, unknown>): ParsedChildFrame | undefined {
  return 'key' in frame && typeof frame['key'] !== 'string' ? fail(`${String(frame['type'])} key must be a string`) : undefined;
}

function keyOf(frame: Record<string, unknown>): { readonly key?: string } {
  return typeof frame['key'] === 'string' ? { key: frame['key'] } : {};
}

function fail(reason: string): ParsedChildFrame {
  return { ok: false, reason };
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
