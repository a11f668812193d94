// The persistent shell's private channels (docs/minimal-tools.md, "Private channels"). Every call
// gets fresh named pipes (FIFOs) with random names in a directory of this session that nothing in
// the sandbox can list: one the host writes the call's input to, two the command's stdout and
// stderr go to. The shell itself is an execute-only copy of bash, which the kernel marks
// non-dumpable, so the programs it runs cannot ptrace it, copy its descriptors with pidfd_getfd,
// read its memory or reopen its descriptors through /proc; a name it holds stays unknown to them.
// The directory is a `shell` dir of the host's verified private root (docs/security.md, "Host-private
// state"): never inside a writable root, so no program reaches it through the filesystem, and swept
// with its bash copy by the next host once this one died without cleaning up (docs/sandbox.md, "Leftovers").

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, closeSync, constants, copyFileSync, openSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { Socket } from 'node:net';
import { delimiter, join } from 'node:path';

import { HarnessError, ToolFailedError } from '../errors.js';
import { SHELL_PROBE_TIMEOUT_MS } from './shell-limits.js';
import { makePrivateDir } from '../sandbox/index.js';

/** Owner may create and enter, nobody may list: a FIFO is reachable only by its random name. */
const UNLISTABLE_DIR_MODE = 0o300;
/** Execute only: exec'ing a file its caller cannot read makes the process non-dumpable. */
const EXECUTE_ONLY_MODE = 0o111;

/** Finds `bash` on a PATH the way the sandboxed shell would (first executable entry). */
function findBash(pathEnv: string): string {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir.startsWith('/')) continue;
    const candidate = join(dir, 'bash');
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  throw new ToolFailedError(`bash was not found on PATH (${pathEnv}); install bash or fix PATH.`);
}

/** A temp dir mounted noexec cannot hold the shell: say so instead of starting a shell that never runs. */
function assertRuns(bashPath: string): void {
  try {
    execFileSync(bashPath, ['--noprofile', '--norc', '-c', ':'], { stdio: 'ignore', timeout: SHELL_PROBE_TIMEOUT_MS });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolFailedError(
      `bash could not run its private copy ${bashPath} (${reason}); if that directory is mounted noexec, set TMPDIR to a directory outside the workspace that allows executables.`,
      { cause: error },
    );
  }
}

/** One session's private directory: the execute-only shell and the FIFOs of its calls. */
export class ShellChannels {
  /** The directory, to bind read-only into the sandbox (a FIFO on a read-only mount stays writable). */
  readonly dir: string;
  /** The shell to launch. */
  readonly bashPath: string;
  #removed = false;

  private constructor(dir: string, bashPath: string) {
    this.dir = dir;
    this.bashPath = bashPath;
  }

  /**
   * Makes the directory (in the private root: call excludeWritableRoots with the launch's writable
   * roots first) and the shell in it. `readableShell` leaves the copy readable (so the shell stays
   * dumpable); only tests pass it, to show what the execute-only copy prevents.
   */
  static create(pathEnv: string, readableShell = false): ShellChannels {
    let dir: string;
    try {
      dir = makePrivateDir('shell');
    } catch (error) {
      if (error instanceof HarnessError) throw error; // CONFIG: no private root qualifies (its message says why).
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolFailedError(`bash could not make its private directory (${reason}); make the temp dir writable or set TMPDIR.`, { cause: error });
    }
    try {
      const bashPath = join(dir, 'bash');
      copyFileSync(findBash(pathEnv), bashPath);
      chmodSync(bashPath, readableShell ? 0o555 : EXECUTE_ONLY_MODE);
      chmodSync(dir, UNLISTABLE_DIR_MODE);
      assertRuns(bashPath);
      return new ShellChannels(dir, bashPath);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      if (error instanceof ToolFailedError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolFailedError(`bash could not prepare its private copy in ${dir} (${reason}).`, { cause: error });
    }
  }

  /** A fresh unguessable path in the directory (not created). */
  freshPath(): string {
    return join(this.dir, randomBytes(16).toString('hex'));
  }

  /** Creates FIFOs at `paths` (mode 0600). */
  async makeFifos(paths: readonly string[]): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      execFile('mkfifo', ['-m', '600', '--', ...paths], (error) => {
        if (error === null) resolve();
        else reject(new ToolFailedError(`bash could not make its private pipes (mkfifo: ${error.message}).`, { cause: error }));
      });
    });
  }

  /** Removes a FIFO's name (open ends stay usable); a missing name is fine. */
  unlink(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }

  /** Removes the directory and everything in it. Idempotent, synchronous (the host's exit hook calls it). */
  remove(): void {
    if (this.#removed) return;
    this.#removed = true;
    try {
      chmodSync(this.dir, 0o700);
    } catch {
      // gone already
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The host's read end of an output FIFO. A second, write-only end held by the host keeps the reader
 * from seeing end-of-file before the shell opens the pipe; `release()` drops it, after which the
 * stream ends once every writer (a background job of the call, say) has closed its end.
 */
export interface OutputFifo {
  readonly stream: Socket;
  release(): void;
}

export function openOutputFifo(path: string): OutputFifo {
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let holdFd: number | undefined;
  try {
    holdFd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (error) {
    closeSync(readFd);
    throw error;
  }
  const stream = new Socket({ fd: readFd, readable: true, writable: false });
  let held: number | undefined = holdFd;
  return {
    stream,
    release() {
      if (held === undefined) return;
      closeSync(held);
      held = undefined;
    },
  };
}

/**
 * The host's write end of an input FIFO, opened read-write so that opening never waits for the
 * shell and the pipe's contents survive while the shell reopens it; the host never reads it.
 */
export function openInputFifo(path: string): Socket {
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  return new Socket({ fd, readable: false, writable: true });
}
