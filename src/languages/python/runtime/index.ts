// The python3 process provider of the ptc-runtime seam (docs/python-runtime.md).

export { createPythonRuntime, memoryResetNote, PYTHON_RESERVED_GLOBALS, type PythonRuntime } from './python-runtime.js';
export { DEFAULT_MEMORY_IDLE_MS, type PythonProcessEvent, type PythonRuntimeConfig, type PythonRuntimeLimits, type PythonRuntimeOptions } from './options.js';
export { detectPython, MIN_PYTHON_VERSION, type PythonInstall } from './detect.js';
