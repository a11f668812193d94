// The `run` frame that starts a program on a ready child (docs/control-channel.md): the code, the
// bindings it may call and the limits the child enforces on its side.

import { MAX_ERROR_MESSAGE_BYTES, MAX_FRAME_DEPTH } from '../limits.js';
import type { ResolvedRunSpec } from '../ptc-runtime/types.js';
import type { ChildBinding, ChildLimits, RunFrame } from './frames.js';

/** What the frame is made of (a run session's input has it all). */
export interface RunFrameInput {
  readonly code: string;
  readonly spec: Pick<ResolvedRunSpec, 'bindings'>;
  readonly limits: Pick<ChildLimits, 'maxFrameBytes' | 'maxPendingCalls' | 'maxPendingArgsBytes'>;
  /** In-memory mode: keep the child's namespace for the next run. */
  readonly keep: boolean;
  readonly channelKey?: string | undefined;
  /** The first run of a kept process: the frame hands the child its channel key. */
  readonly sendChannelKey?: boolean;
}

/** `maxOutputBytes`: what is left of the run's output limit (the notes before the program count). */
export function runFrame(input: RunFrameInput, maxOutputBytes: number): RunFrame {
  const { spec, limits } = input;
  return {
    type: 'run',
    code: input.code,
    bindings: spec.bindings.map(
      (binding): ChildBinding => ({
        global: binding.global,
        members: Object.keys(binding.functions),
        errorClass: binding.errorClass === undefined ? null : { ...binding.errorClass },
        ...(binding.argumentList === true ? { argumentList: true } : {}),
      }),
    ),
    limits: {
      maxOutputBytes,
      maxFrameBytes: limits.maxFrameBytes,
      maxPendingCalls: limits.maxPendingCalls,
      maxPendingArgsBytes: limits.maxPendingArgsBytes,
      // A value sits one level inside its frame object, which the host bounds at MAX_FRAME_DEPTH.
      maxValueDepth: MAX_FRAME_DEPTH - 1,
      maxErrorMessageBytes: MAX_ERROR_MESSAGE_BYTES,
    },
    ...(input.keep ? { keep: true } : {}),
    ...(input.sendChannelKey === true && input.channelKey !== undefined ? { key: input.channelKey } : {}),
  };
}
