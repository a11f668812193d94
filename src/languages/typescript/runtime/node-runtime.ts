// createNodeRuntime: the Node provider of the ptc-runtime seam, a thin adapter over the shared
// process runtime (src/ptc-runtime-process/). What is Node's own: the child is `node` reading the
// CommonJS bootstrap on stdin with a V8 heap limit, programs are type-stripped on the host
// (STRIP_FAILED before any child is involved) and, in in-memory mode, rewritten so their top-level
// names outlive them (top-level-names.ts), and a V8 out-of-memory abort is told apart from a forged
// one when the process ends early.

import type { ErrorInfo } from '../../../errors.js';
import { endedEarlyMessage, type ChildExit } from '../../../ptc-runtime-process/child-exit.js';
import type { ProcessLanguage } from '../../../ptc-runtime-process/language.js';
import { createProcessRuntime, type ProcessRuntime } from '../../../ptc-runtime-process/process-runtime.js';
import { BOOTSTRAP_INPUT_ARGS, WARM_UP_ARG, bootstrapSource } from './bootstrap-source.js';
import { resolveNodeRuntimeOptions, type NodeRuntimeConfig, type NodeRuntimeOptions } from './options.js';
import { stripProgram } from './strip.js';
import { keepTopLevelNames } from './top-level-names.js';

/** Globals the runtime defines in every program; bindings cannot take these names. */
export const RUNTIME_GLOBALS: readonly string[] = ['console', 'require', 'process', 'Buffer'];

export interface NodeRuntime extends ProcessRuntime<'typescript'> {
  /** The validated options, every default filled in. */
  readonly config: NodeRuntimeConfig;
}

export function createNodeRuntime(options: NodeRuntimeOptions = {}): NodeRuntime {
  const config = resolveNodeRuntimeOptions(options);
  return { ...createProcessRuntime(config, nodeLanguage(config)), config };
}

function nodeLanguage(config: NodeRuntimeConfig): ProcessLanguage<'typescript'> {
  // The runtime's own experimental features (dynamic import in vm scripts, the permission model) must
  // not print warnings into the program's captured stderr. Node older than 20.11 lacks the flag, so it
  // is only passed to the host's own Node binary, whose flags we can ask.
  const quiet =
    config.nodePath === process.execPath && process.allowedNodeEnvironmentFlags.has('--disable-warning')
      ? ['--disable-warning=ExperimentalWarning']
      : [];
  const args = [`--max-old-space-size=${config.memoryMb}`, ...quiet, ...BOOTSTRAP_INPUT_ARGS];
  const aheadArgs = [...args, WARM_UP_ARG];
  return {
    language: 'typescript',
    name: 'Node',
    reservedGlobals: RUNTIME_GLOBALS,
    prepare(program, keep, bindings) {
      const stripped = stripProgram(program);
      if (!stripped.ok) return { ok: false, error: { code: 'STRIP_FAILED', message: stripped.message } };
      if (!keep) return stripped;
      const given = bindings.flatMap((binding) => (binding.errorClass === undefined ? [binding.global] : [binding.global, binding.errorClass.name]));
      const kept = keepTopLevelNames(stripped.code, given);
      return kept.ok ? kept : { ok: false, error: { code: 'STRIP_FAILED', message: kept.message } };
    },
    command: (ahead) => ({ kind: 'node', command: config.nodePath, args: ahead ? aheadArgs : args, stdin: bootstrapSource() }),
    childTexts: { start: 'the program process', process: 'The program process', exited: 'The program process' },
    sessionTexts: { calls: 'binding calls', memoryHint: 'stream it', exitError },
    notStarted: "the program's process",
  };
}

/**
 * Why the process ended before the program returned. MEMORY_LIMIT needs evidence the program cannot
 * forge (docs/sandbox.md, "Memory"): a real SIGABRT (bwrap's exit code is decoded into a signal only
 * when the seccomp exit rule made it truthful), V8's out-of-memory report, and a resident size the
 * watchdog saw near the heap limit. Text on stderr or an exit code alone is an EXCEPTION.
 */
function exitError(exit: ChildExit, memoryMb: number): ErrorInfo {
  const oomText = /heap out of memory|Reached heap limit|allocation failed/i.test(exit.stderr);
  const nearLimit = exit.peakResidentBytes >= memoryMb * 1024 * 1024 * OOM_MIN_RESIDENT_FRACTION;
  if (exit.signal === 'SIGABRT' && oomText && nearLimit) {
    return {
      code: 'MEMORY_LIMIT',
      message: `the program ran out of heap memory (limit ${memoryMb} MiB); process the data in smaller pieces`,
    };
  }
  return { code: 'EXCEPTION', message: endedEarlyMessage(exit) };
}

/** A V8 heap that hit its limit has most of it resident; a fake abort from a small program does not. */
const OOM_MIN_RESIDENT_FRACTION = 0.75;
