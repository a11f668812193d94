// The `bash` tool of the minimal preset: one persistent shell per tool instance (per agent), started
// lazily under the same sandbox and policy as the one-shot `bash` (src/builtin-tools/bash.ts), so the
// working directory, variables and functions survive between calls. The process and its end-marker
// protocol live in shell-session.ts, its private channels in shell-channels.ts; restart semantics
// and what a hostile program can and cannot do to the shell are in docs/minimal-tools.md.

import { AbortedError, InvalidArgsError, SandboxUnavailableError, ToolFailedError } from '../errors.js';
import { planModeUnconfinedMessage, readOnlyWorkspaceOf } from './read-only-workspace.js';
import { DEFAULT_BASH_MEMORY_MB, MAX_BASH_STREAM_BYTES } from './shell-limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, withProperty, type ArgsOf, type ContractSchemas, type ValueOf } from './builtin-contract.js';
import { persistentBashTimeoutText, resolveBashOptions, truncationNote, type BashToolOptions } from './bash-options.js';
import { ShellSession } from './shell-session.js';
import { memoryLimitNote } from './shell-memory.js';

/** The same options as the one-shot `bash` (bash-options.ts). */
export type PersistentBashToolOptions = BashToolOptions;

type Contract = typeof import('./contracts/persistent-bash.js');
export type PersistentBashArgs = ArgsOf<Contract>;
export type PersistentBashOutput = ValueOf<Contract>;

/** Which shell a call ran in. */
export type ShellUse = PersistentBashOutput['shell'];

/** The tool plus the means to end its shell; call `dispose()` when the agent is done. */
export type PersistentBashTool = ToolDefinition<PersistentBashArgs, PersistentBashOutput> & {
  /** Kills the shell and everything it started; later calls fail. */
  dispose(): Promise<void>;
};

export function persistentBashDescription(maxStreamBytes: number = MAX_BASH_STREAM_BYTES): string {
  return (
    'Run a command in a persistent bash shell in the workspace. The shell is kept between calls: the ' +
    'working directory (cd), exported and shell variables, functions and background jobs (cmd &) stay ' +
    'for the next call; what a background job prints after its call returned is discarded, so redirect ' +
    'its output to a file to read it later. Commands run under the same sandbox as the other tools: they can read and write ' +
    'the workspace, read system files, and nothing else unless allowed; network is off unless allowed. ' +
    'Stdin is /dev/null and there is no terminal, so interactive programs get end-of-input: pass ' +
    'non-interactive flags (-y, --no-pager). A command that passes its timeout is killed together with ' +
    'the shell and everything it started; the next call gets a fresh shell. Set restart to true to ' +
    'start a fresh shell on purpose. Each of stdout and stderr keeps at most ' +
    `${maxStreamBytes} bytes (start and end); redirect long output to a file and read it in parts.`
  );
}

/** The contract's schemas, with the description of `timeout_ms` naming this tool's default deadline. */
function persistentBashSchemas(defaultTimeoutMs: number): ContractSchemas {
  const schemas = contractSchemas('persistent-bash', () => import('./contracts/persistent-bash.js'));
  return { ...schemas, inputSchema: withProperty(schemas.inputSchema, 'timeout_ms', { description: persistentBashTimeoutText(defaultTimeoutMs) }) };
}

export function createPersistentBashTool(options: PersistentBashToolOptions): PersistentBashTool {
  const { defaultTimeoutMs, maxStreamBytes, memoryLimitMb, sandboxPolicy, readOnlyPolicy } = resolveBashOptions(options);

  let session: ShellSession | undefined;
  // Whether the live shell holds the workspace read-only (plan mode); a switch of mode restarts it.
  let sessionReadOnly = false;
  let everStarted = false;
  let disposed = false;
  // Exclusive by declaration, but a direct caller could still overlap calls: they queue here.
  let queue: Promise<unknown> = Promise.resolve();

  const endSession = async (): Promise<void> => {
    const ending = session;
    session = undefined;
    await ending?.dispose();
  };

  const call = async (args: PersistentBashArgs, signal: AbortSignal, readOnly: boolean): Promise<PersistentBashOutput> => {
    if (disposed) throw new ToolFailedError('This bash tool was disposed; its shell is gone.');
    if (signal.aborted) throw new AbortedError('bash was aborted before the command started.');
    if (args.restart === true) await endSession();
    else if (session !== undefined && (!session.alive || sessionReadOnly !== readOnly)) await endSession();
    let shell: ShellUse = 'reused';
    if (session === undefined) {
      shell = everStarted ? 'restarted' : 'started';
      session = await ShellSession.start({ policy: readOnly ? readOnlyPolicy : sandboxPolicy, mode: options.sandbox, maxStreamBytes, memoryLimitBytes: memoryLimitMb * 1024 * 1024 });
      sessionReadOnly = readOnly;
      everStarted = true;
      // Plan mode (docs/plan-mode.md): only an OS sandbox holds a shell's workspace read-only.
      if (readOnly && session.enforced.fs !== 'full') {
        await endSession();
        throw new SandboxUnavailableError(planModeUnconfinedMessage('a shell'));
      }
    }
    const current = session;
    const sandbox = { backend: current.backend, enforced: { ...current.enforced } };
    if (args.command === undefined) {
      return { exitCode: null, stdout: '', stderr: '', timedOut: false, truncated: false, shell, shellEnded: false, sandbox };
    }
    const outcome = await current.run(args.command, { timeoutMs: args.timeout_ms ?? defaultTimeoutMs, signal });
    if (outcome.shellExit !== undefined && session === current) session = undefined;
    if (outcome.aborted) {
      throw new AbortedError('bash was aborted: the command was killed with the shell and everything it started; the next call starts a fresh shell.');
    }
    return {
      exitCode: outcome.status ?? (outcome.timedOut ? null : (outcome.shellExit?.code ?? null)),
      stdout: outcome.stdout.text(),
      stderr: outcome.stderr.text(),
      timedOut: outcome.timedOut,
      truncated: outcome.stdout.truncated || outcome.stderr.truncated,
      ...(outcome.memoryLimited ? { memoryLimited: true } : {}),
      shell,
      shellEnded: outcome.shellExit !== undefined,
      sandbox,
    };
  };

  const tool = defineTool<PersistentBashArgs, PersistentBashOutput>({
    name: 'bash',
    description: persistentBashDescription(maxStreamBytes),
    ...persistentBashSchemas(defaultTimeoutMs),
    execute(args, exec) {
      if (args.command === undefined && args.restart !== true) {
        throw new InvalidArgsError('bash needs a command (or restart: true to start a fresh shell).');
      }
      if (args.command?.includes('\0') === true) {
        throw new InvalidArgsError('command contains a NUL character, which bash cannot take; remove it.');
      }
      const readOnly = readOnlyWorkspaceOf(exec.scope);
      const result = queue.then(() => call(args, exec.signal, readOnly));
      queue = result.catch(() => undefined);
      return result;
    },
    renderContent(value) {
      return renderPersistentBash(value, maxStreamBytes, memoryLimitMb);
    },
  });

  return Object.freeze({
    ...tool,
    async dispose() {
      disposed = true;
      await endSession();
    },
  });
}

const STATE_LOST = 'the working directory, variables, functions and background jobs of the previous shell are gone';

/** The model-visible text: exit status, each non-empty stream, then notes on the shell and the bounds. */
export function renderPersistentBash(value: PersistentBashOutput, maxStreamBytes: number = MAX_BASH_STREAM_BYTES, memoryLimitMb: number = DEFAULT_BASH_MEMORY_MB): string {
  const ranNothing = value.exitCode === null && !value.timedOut && !value.shellEnded && !value.stdout && !value.stderr;
  const lines: string[] = [];
  if (ranNothing) {
    lines.push(`Started a fresh shell in the workspace; ${STATE_LOST}.`);
    return lines.join('\n');
  }
  lines.push(value.exitCode !== null ? `Exit code: ${value.exitCode}` : 'Exit code: none (the command did not finish)');
  if (value.stdout) lines.push('stdout:', value.stdout.replace(/\n$/, ''));
  if (value.stderr) lines.push('stderr:', value.stderr.replace(/\n$/, ''));
  if (!value.stdout && !value.stderr) lines.push('(no output)');
  if (value.shell === 'restarted') lines.push(`Note: this ran in a fresh shell in the workspace; ${STATE_LOST}.`);
  if (value.timedOut) {
    lines.push(
      'Note: the command timed out and was killed together with the shell and everything it started. ' +
        'The next call starts a fresh shell in the workspace (state lost: working directory, variables, ' +
        'functions, background jobs). Pass a larger timeout_ms, or run long jobs in the background with output to a file.',
    );
  } else if (value.shellEnded) {
    lines.push('Note: the command ended the shell (exit or exec); the next call starts a fresh shell in the workspace and its state is lost.');
  }
  if (value.memoryLimited === true) lines.push(memoryLimitNote(memoryLimitMb));
  if (value.truncated) {
    lines.push(truncationNote(maxStreamBytes));
  }
  return lines.join('\n');
}
