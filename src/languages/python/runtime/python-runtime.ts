// createPythonRuntime: the python3 provider of the ptc-runtime seam (docs/python-runtime.md), a thin
// adapter over the shared process runtime (src/ptc-runtime-process/). What is Python's own: the
// interpreter is detected (3.9+) and started isolated with the bootstrap (child/bootstrap.py) on stdin, the program text
// goes to the child as it is (the bootstrap compiles it), and binding names must be Python
// identifiers. In `in-memory` execution, runs that share a memoryKey reuse one kept process.

import { ConfigError } from '../../../errors.js';
import type { ResolvedRunSpec } from '../../../ptc-runtime/types.js';
import { endedEarlyMessage } from '../../../ptc-runtime-process/child-exit.js';
import { memoryResetNote as resetNote } from '../../../ptc-runtime-process/in-memory.js';
import type { ProcessLanguage } from '../../../ptc-runtime-process/language.js';
import { createProcessRuntime, type ProcessRuntime } from '../../../ptc-runtime-process/process-runtime.js';
import { packFile } from '../../pack-file.js';
import { detectPython } from './detect.js';
import { resolvePythonRuntimeOptions, type PythonRuntimeConfig, type PythonRuntimeOptions } from './options.js';

/** Names a binding global cannot take: Python keywords and the names the bootstrap uses. */
export const PYTHON_RESERVED_GLOBALS: readonly string[] = [
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def',
  'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is',
  'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
  'print', '__builtins__', '__name__', '__ptc_main__',
];

/**
 * -I: ignore PYTHON* variables and the user's site dir; -S: no site-packages (the standard library
 * only); -B: write no .pyc into the workspace; -X utf8: UTF-8 whatever the locale; `-`: the bootstrap
 * comes on stdin.
 */
export const PYTHON_ARGS: readonly string[] = ['-I', '-S', '-B', '-X', 'utf8', '-'];

/** The child's bootstrap (Python 3.9+, standard library only), beside this module in src/ and dist/. */
export const PYTHON_BOOTSTRAP_FILE = './child/bootstrap.py';

const PYTHON_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface PythonRuntime extends ProcessRuntime<'python'> {
  /** The validated options, every default filled in. */
  readonly config: PythonRuntimeConfig;
}

export function createPythonRuntime(options: PythonRuntimeOptions = {}): PythonRuntime {
  const config = resolvePythonRuntimeOptions(options);
  return { ...createProcessRuntime(config, pythonLanguage(config)), config };
}

/** The line an in-memory run starts with after its conversation's process was lost. */
export function memoryResetNote(reason: string): string {
  return resetNote('Python', reason);
}

function pythonLanguage(config: PythonRuntimeConfig): ProcessLanguage<'python'> {
  return {
    language: 'python',
    name: 'Python',
    reservedGlobals: PYTHON_RESERVED_GLOBALS,
    checkSpec: checkPythonNames,
    // The bootstrap parses and compiles the text itself, keeping every position the model's own.
    prepare: (program) => ({ ok: true, code: program }),
    async command() {
      const python = await detectPython(config.pythonPath);
      return {
        kind: 'exec',
        command: python.executable,
        args: PYTHON_ARGS,
        ...(python.binDir.startsWith('/usr/') ? {} : { pathPrefix: python.binDir }),
        runtimeReadPaths: python.readPaths,
        stdin: packFile(import.meta.url, PYTHON_BOOTSTRAP_FILE),
      };
    },
    childTexts: { start: 'python3', process: 'The python3 process', exited: 'python3' },
    // Python has no heap flag: the memory limit is the host's alone (docs/sandbox.md, "Memory"), so an
    // early end is never MEMORY_LIMIT by itself; the session decides from the memory group or the tree's size.
    sessionTexts: { calls: 'tool calls', memoryHint: 'iterate', exitError: (exit) => ({ code: 'EXCEPTION', message: endedEarlyMessage(exit) }) },
    notStarted: "the program's python3 process",
  };
}

function checkPythonNames(spec: ResolvedRunSpec): void {
  spec.bindings.forEach((binding, index) => {
    for (const [field, name] of [['global', binding.global], ['errorClass.name', binding.errorClass?.name]] as const) {
      if (name !== undefined && !PYTHON_IDENTIFIER.test(name)) {
        throw new ConfigError(`bindings[${index}].${field}: "${name}" is not a Python identifier (letters, digits and _).`);
      }
    }
  });
}
