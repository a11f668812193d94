// The `bash` tool: one `bash -c` command per call, launched through the same sandbox planner and
// policy as run_code programs, so a program and a shell command can touch exactly the same things.
// Output is bounded per stream; a timeout or an abort kills everything the command started.

import type { Readable } from 'node:stream';

import type { z } from 'zod';
import { AbortedError, SandboxUnavailableError, ToolFailedError } from '../errors.js';
import { planModeUnconfinedMessage, readOnlyWorkspaceOf } from './read-only-workspace.js';
import {
  BASH_PIPE_DRAIN_MS,
  DEFAULT_BASH_MEMORY_MB,
  MAX_BASH_STREAM_BYTES,
  PROCESS_TREE_SAMPLE_MS,
} from './shell-limits.js';
import { launch, type LaunchStdioEntry, type Launched } from '../sandbox/index.js';
import type { SpillStore, SpillStream } from '../tools/spill.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, withProperty, type ArgsOf, type ContractSchemas, type ValueOf } from './builtin-contract.js';
import { bashTimeoutText, resolveBashOptions, truncationNote, type BashToolOptions } from './bash-options.js';
import { BoundedOutput } from './bounded-output.js';
import { memoryLimitNote, ShellMemoryWatch } from './shell-memory.js';
import { DEFAULT_READ_LIMIT_LINES } from './limits.js';

export type { BashToolOptions } from './bash-options.js';

type Contract = typeof import('./contracts/bash.js');
export type BashArgs = ArgsOf<Contract>;
export type BashOutput = ValueOf<Contract>;

/** Where a spilled stream is and how big it was; `bytes` < `totalBytes` when the spill file limit cut it. */
export type SpilledStream = z.output<Contract['spilledStream']>;

/** The tool description for a given per-stream bound. */
export function bashDescription(maxStreamBytes: number = MAX_BASH_STREAM_BYTES): string {
  return (
    'Run one shell command with bash -c in the workspace and return its exit code, stdout and stderr. ' +
    'It runs under the same sandbox as run_code programs: it can read and write the workspace, read ' +
    'system files, and nothing else unless allowed; network is off unless allowed. Nothing persists ' +
    'between calls (no shell state, no background jobs): everything the command started is killed when ' +
    `it ends or times out. Each of stdout and stderr keeps at most ${maxStreamBytes} bytes (start and ` +
    'end); in an agent session a longer stream is saved whole to a file the result names, to read in parts with read.'
  );
}

export const BASH_DESCRIPTION = bashDescription();

/** The contract's schemas, with the description of `timeout_ms` naming this tool's default deadline. */
function bashSchemas(defaultTimeoutMs: number): ContractSchemas {
  const schemas = contractSchemas('bash', () => import('./contracts/bash.js'));
  return { ...schemas, inputSchema: withProperty(schemas.inputSchema, 'timeout_ms', { description: bashTimeoutText(defaultTimeoutMs) }) };
}

export function createBashTool(options: BashToolOptions): ToolDefinition<BashArgs, BashOutput> {
  const { defaultTimeoutMs, maxStreamBytes, memoryLimitMb, sandboxPolicy, readOnlyPolicy } = resolveBashOptions(options);

  return defineTool<BashArgs, BashOutput>({
    name: 'bash',
    description: bashDescription(maxStreamBytes),
    ...bashSchemas(defaultTimeoutMs),
    examples: [{ command: 'ls -la', description: 'List the workspace' }],
    async execute(args, exec) {
      if (exec.signal.aborted) throw new AbortedError('bash was aborted before the command started.');
      // Plan mode: the workspace read-only, which only an OS sandbox holds for a shell (docs/plan-mode.md).
      const readOnly = readOnlyWorkspaceOf(exec.scope);
      // Without bwrap's pid namespace, a command's setsid orphans leave the process group: the launch
      // samples the tree so the kill still reaches them (docs/sandbox.md, "Starting and ending processes").
      const launched = await launch({
        command: { kind: 'exec', command: 'bash', args: ['-c', args.command] },
        policy: readOnly ? readOnlyPolicy : sandboxPolicy,
        mode: options.sandbox,
        stdio: BASH_STDIO,
        limits: { memoryLimitBytes: memoryLimitMb * 1024 * 1024 },
        sampleDescendantsMs: PROCESS_TREE_SAMPLE_MS,
        beforeSpawn: (report) => {
          if (readOnly && report.enforced.fs !== 'full') throw new SandboxUnavailableError(planModeUnconfinedMessage('a shell command'));
          if (exec.signal.aborted) throw new AbortedError('bash was aborted before the command started.');
        },
      });
      const outcome = await runLaunched(launched, {
        timeoutMs: args.timeout_ms ?? defaultTimeoutMs,
        maxStreamBytes,
        memoryLimitBytes: memoryLimitMb * 1024 * 1024,
        signal: exec.signal,
        ...(exec.spill ? { spill: { store: exec.spill, callId: exec.callId } } : {}),
      });
      if (outcome.aborted) {
        outcome.spill?.stdout.discard();
        outcome.spill?.stderr.discard();
        throw new AbortedError('bash was aborted; the command and its processes were killed.');
      }
      const spill = spillStreams(outcome);
      return {
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        stdout: outcome.stdout.text(),
        stderr: outcome.stderr.text(),
        timedOut: outcome.timedOut,
        truncated: outcome.stdout.truncated || outcome.stderr.truncated,
        ...(outcome.memoryLimited ? { memoryLimited: true } : {}),
        ...(spill ? { spill } : {}),
        sandbox: { backend: launched.report.backend, enforced: { ...launched.report.enforced } },
      };
    },
    renderContent(value) {
      return renderBash(value, maxStreamBytes, memoryLimitMb);
    },
  });
}

/** The model-visible text: exit status, each non-empty stream, then notes on timeout and truncation. */
export function renderBash(value: BashOutput, maxStreamBytes: number = MAX_BASH_STREAM_BYTES, memoryLimitMb: number = DEFAULT_BASH_MEMORY_MB): string {
  const lines: string[] = [
    value.exitCode !== null ? `Exit code: ${value.exitCode}` : `Exit code: none (killed by ${value.signal ?? 'a signal'})`,
  ];
  if (value.stdout) lines.push('stdout:', value.stdout.replace(/\n$/, ''));
  if (value.stderr) lines.push('stderr:', value.stderr.replace(/\n$/, ''));
  if (!value.stdout && !value.stderr) lines.push('(no output)');
  if (value.timedOut) {
    lines.push('Note: the command timed out and was killed with everything it started; pass a larger timeout_ms or make it faster.');
  }
  if (value.memoryLimited === true) lines.push(memoryLimitNote(memoryLimitMb));
  const spilled = (['stdout', 'stderr'] as const).filter((name) => value.spill?.[name] !== undefined);
  for (const name of spilled) lines.push(spillNote(name, value.spill![name]!, maxStreamBytes));
  if (value.truncated && spilled.length === 0) lines.push(truncationNote(maxStreamBytes));
  return lines.join('\n');
}

/** Where a truncated stream is kept whole, and how to read it. */
function spillNote(name: 'stdout' | 'stderr', file: SpilledStream, maxStreamBytes: number): string {
  const cut = file.bytes < file.totalBytes ? ` (its first ${file.bytes} bytes: the spill limits)` : '';
  const call = JSON.stringify({ path: file.path, offset: 1, limit: DEFAULT_READ_LIMIT_LINES });
  return (
    `Note: ${name} had ${file.totalBytes} bytes; above are its first and last ${maxStreamBytes / 2}. The whole stream is saved in ` +
    `${file.path}${cut}: read it in parts with read ${call} (in a program: await tools.read(...)).`
  );
}

/** Commits the spill file of each stream that lost bytes to its bound; discards the others. */
function spillStreams(outcome: RunOutcome): BashOutput['spill'] {
  if (!outcome.spill) return undefined;
  const out: { stdout?: SpilledStream; stderr?: SpilledStream } = {};
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = outcome.spill[name];
    if (!outcome[name].truncated) {
      stream.discard();
      continue;
    }
    const ref = stream.commit();
    if (ref) out[name] = { path: ref.path, bytes: ref.bytes, totalBytes: ref.totalBytes };
  }
  return out.stdout || out.stderr ? out : undefined;
}

interface RunOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  timedOut: boolean;
  aborted: boolean;
  memoryLimited: boolean;
  /** The streams' spill files being filled, when the call belongs to a session. */
  spill?: { stdout: SpillStream; stderr: SpillStream };
}

/** stdin closed, stdout and stderr captured. */
const BASH_STDIO: readonly LaunchStdioEntry[] = ['ignore', 'pipe', 'pipe'];

function runLaunched(
  launched: Launched<typeof BASH_STDIO>,
  limits: { timeoutMs: number; maxStreamBytes: number; memoryLimitBytes: number; signal: AbortSignal; spill?: { store: SpillStore; callId: string } },
): Promise<RunOutcome> {
  const confined = launched.process;
  // bwrap may have forked before the spawn moved it into its memory group: move the chain again. The
  // group then holds the tree, or memoryGroup is undefined and the watch samples the tree instead.
  confined.recordChain();
  const memory = new ShellMemoryWatch(confined, limits.memoryLimitBytes);
  const child = confined.child;
  const stdout = new BoundedOutput(limits.maxStreamBytes);
  const stderr = new BoundedOutput(limits.maxStreamBytes);
  // With a session, each stream is also written whole (up to the spill file limit) to a temp file,
  // kept only when the bound cut the stream (docs/sessions.md, "Spill").
  const spill = limits.spill
    ? { stdout: limits.spill.store.open(`${limits.spill.callId}.stdout`), stderr: limits.spill.store.open(`${limits.spill.callId}.stderr`) }
    : undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    spill?.stdout.push(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    spill?.stderr.push(chunk);
  });

  return new Promise<RunOutcome>((resolve, reject) => {
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const killTree = (): void => confined.killTree();
    const onAbort = (): void => {
      aborted = true;
      killTree();
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      killTree();
    }, limits.timeoutMs);
    limits.signal.addEventListener('abort', onAbort, { once: true });

    let memoryLimited = false;
    const finish = (): void => {
      memoryLimited = memory.stop();
      clearTimeout(deadline);
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      limits.signal.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      finish();
      killTree();
      spill?.stdout.discard();
      spill?.stderr.discard();
      void confined.waitGone().then(() => reject(new ToolFailedError(`bash could not be started: ${error.message}`, { cause: error })));
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // One command per call: background jobs it left behind go with it.
      killTree();
      drainTimer = setTimeout(() => {
        (child.stdout as Readable | null)?.destroy();
        (child.stderr as Readable | null)?.destroy();
      }, BASH_PIPE_DRAIN_MS);
    });
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      finish();
      const reported = exit ?? { code, signal };
      // We SIGKILLed the tree, so that is how it ended, whatever exit status came first: the kill
      // reaches the deepest processes first, and a shell whose `wait` returned as its children died
      // (or bwrap, 128 + 9, having seen its command die) may exit on its own before its own SIGKILL.
      const status = timedOut || aborted ? { code: null, signal: 'SIGKILL' as const } : reported;
      // The call returns once nothing it started is left (and its pids group is removed).
      killTree();
      void confined.waitGone().then(() =>
        resolve({
          exitCode: status.code,
          signal: status.signal,
          stdout,
          stderr,
          timedOut,
          aborted,
          memoryLimited: memoryLimited || memory.overLimit(),
          ...(spill ? { spill } : {}),
        }),
      );
    });
  });
}
