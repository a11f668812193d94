// The host paths a launched runtime must read besides the policy's roots: the caller's explicit list
// plus, for Node, the entry script and preloaded files (docs/sandbox.md).

import { realpathOrUndefined } from './policy.js';
import type { LaunchRequest } from './types.js';

/** Node options whose value is the next argument and names a file Node loads. */
const NODE_FILE_OPTIONS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader']);
/** Node options that take the next argument as a value that is not a file. */
const NODE_VALUE_OPTIONS = new Set(['--input-type', '--title', '-C', '--conditions', '--inspect-port']);
/** Node options after which no entry script follows. */
const NODE_NO_SCRIPT_OPTIONS = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive', '-c', '--check']);

/**
 * The real paths the runtime needs to read: the explicit list plus, for Node, the entry script and
 * preloaded files when given as absolute paths. Only host-chosen arguments are scanned (`exec`
 * arguments may carry model text, so they never widen the policy).
 */
export function runtimeReadPaths(request: Pick<LaunchRequest, 'kind' | 'args' | 'runtimeReadPaths'>): string[] {
  const wanted = [...(request.runtimeReadPaths ?? [])];
  if (request.kind === 'node') {
    const args = request.args;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] ?? '';
      const eq = arg.indexOf('=');
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      if (NODE_NO_SCRIPT_OPTIONS.has(arg)) break;
      if (NODE_FILE_OPTIONS.has(name)) {
        const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
        if (value !== undefined) wanted.push(value);
        continue;
      }
      if (NODE_VALUE_OPTIONS.has(arg)) {
        i++;
        continue;
      }
      if (arg === '--') {
        if (args[i + 1] !== undefined) wanted.push(args[i + 1] ?? '');
        break;
      }
      if (arg.startsWith('-')) continue;
      wanted.push(arg);
      break;
    }
  }
  const out: string[] = [];
  for (const path of wanted) {
    if (!path.startsWith('/')) continue;
    const real = realpathOrUndefined(path);
    if (real !== undefined && !out.includes(real)) out.push(real);
  }
  return out;
}
