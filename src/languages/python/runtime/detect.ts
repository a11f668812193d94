// Finds the python3 a runtime runs: asks the candidate itself (a pyenv shim or a venv link names a
// different real interpreter) for its version, executable and install prefix. The prefix is made
// readable inside the sandbox when it lies outside /usr. Once per path per host process.

import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { RuntimeUnavailableError } from '../../../errors.js';
import { DETECT_TIMEOUT_MS } from './limits.js';

/** The oldest Python the child bootstrap supports. */
export const MIN_PYTHON_VERSION: readonly [number, number] = [3, 9];

const PROBE = 'import json, sys; print(json.dumps([list(sys.version_info[:3]), sys.executable, sys.base_prefix]))';

export interface PythonInstall {
  /** The real interpreter binary (absolute, symlinks resolved). */
  readonly executable: string;
  readonly version: readonly [number, number, number];
  /** Host paths the interpreter reads (its prefix and binary dir) outside /usr, for the sandbox. */
  readonly readPaths: readonly string[];
  /** Its bin dir, for the program's PATH when outside /usr. */
  readonly binDir: string;
}

const cache = new Map<string, Promise<PythonInstall>>();

/** Resolves the interpreter, or rejects with RUNTIME_UNAVAILABLE saying what to install. */
export function detectPython(pythonPath: string): Promise<PythonInstall> {
  let found = cache.get(pythonPath);
  if (found === undefined) {
    found = probe(pythonPath);
    // A failure is not cached: installing python3 while the host runs should work on the next run.
    found.catch(() => cache.delete(pythonPath));
    cache.set(pythonPath, found);
  }
  return found;
}

function probe(pythonPath: string): Promise<PythonInstall> {
  return new Promise((resolve, reject) => {
    // The host's environment: a pyenv shim needs it to find the interpreter it stands for.
    execFile(pythonPath, ['-I', '-S', '-c', PROBE], { timeout: DETECT_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        reject(
          new RuntimeUnavailableError(
            missing
              ? `The Python runtime needs python3 (${MIN_PYTHON_VERSION.join('.')} or newer), and "${pythonPath}" was not found. ` +
                  'Install it (`apt-get install python3`, `brew install python3`) or set pythonPath to its absolute path.'
              : `The Python runtime could not start "${pythonPath}": ${error.message.split('\n')[0]}${stderr.trim() === '' ? '' : ` (${stderr.trim().slice(-300)})`}. ` +
                  'Check that it runs, or set pythonPath to a working python3.',
          ),
        );
        return;
      }
      try {
        const [version, executable, prefix] = JSON.parse(stdout.trim().split('\n').pop() ?? '') as [number[], string, string];
        const [major = 0, minor = 0, patch = 0] = version;
        if (major < MIN_PYTHON_VERSION[0] || (major === MIN_PYTHON_VERSION[0] && minor < MIN_PYTHON_VERSION[1])) {
          reject(
            new RuntimeUnavailableError(
              `The Python runtime needs python3 ${MIN_PYTHON_VERSION.join('.')} or newer; "${pythonPath}" is ${major}.${minor}.${patch}. ` +
                'Install a newer python3 or set pythonPath to one.',
            ),
          );
          return;
        }
        const real = realpathSync(executable);
        const binDir = dirname(real);
        const readPaths = [...new Set([realpathSync(prefix), binDir])].filter((path) => !isWithin(path, '/usr'));
        resolve(Object.freeze({ executable: real, version: [major, minor, patch] as const, readPaths, binDir }));
      } catch (cause) {
        reject(new RuntimeUnavailableError(`"${pythonPath}" did not answer like python3 (${cause instanceof Error ? cause.message : String(cause)}); set pythonPath to a python3.`));
      }
    });
  });
}

function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}
