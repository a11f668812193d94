// A file tool's write to a protected path (docs/sandbox.md, "Protected paths"): refused unless a
// person approves that exact call through the approvals service. It is asked on its own, every
// time: an "allow for the session" of the tool, or `--approve never`, never covers it.

import { PermissionDeniedError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { ToolExecContext } from '../tools/types.js';
import { ProtectedPathError, type OpenedPath, type PathResolver, type ResolveOptions } from './path-resolver.js';

/** The call a write belongs to, as the person is shown it. */
export interface WriteCall {
  readonly tool: string;
  readonly args: JsonValue;
  readonly exec: ToolExecContext;
}

/** Resolves `userPath` for writing; a protected target asks a person first (PERMISSION_DENIED on a no). */
export async function resolveForWrite(resolver: PathResolver, userPath: string, call: WriteCall, options: ResolveOptions = {}): Promise<OpenedPath> {
  try {
    return resolver.resolve(userPath, 'write', options);
  } catch (error) {
    if (!(error instanceof ProtectedPathError)) throw error;
    const { exec } = call;
    const approvals = exec.scope?.get('approvals');
    if (approvals === undefined) {
      throw new PermissionDeniedError(
        `${error.message} No one can be asked here (no front-end asks for approvals: ptc run, ptc exec, a library call), ` +
          'so it is refused. Make that change yourself, or ask the user to run it in ptc chat, ptc ui or ptc acp and approve it.',
      );
    }
    const reason = await approvals.confirm(
      {
        id: exec.callId,
        tool: call.tool,
        args: call.args,
        why: `${call.tool} writes "${error.display}", a protected path`,
        ...(exec.parent ? { parent: { id: exec.parent.id, tool: exec.parent.name } } : {}),
      },
      exec.signal,
      { always: true },
    );
    if (reason !== undefined) throw new PermissionDeniedError(`${error.message} Refused: ${reason}.`);
    return resolver.resolve(userPath, 'write', { ...options, allowProtected: true });
  }
}
