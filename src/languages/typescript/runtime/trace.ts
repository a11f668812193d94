// Phase tracing moved to the shared process-runtime module; this path stays for existing importers.

export * from '../../../ptc-runtime-process/trace.js';
