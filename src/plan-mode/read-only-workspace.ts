// What the tools that run commands and programs ask of plan mode (docs/plan-mode.md): whether the
// call's scope must leave the workspace unchanged, and what to say where no sandbox can hold that.
// Kept apart from plan-mode.ts so bash and run_code depend on this much only.

import type { Context } from '../context/context.js';
import type { PlanModeService } from './plan-mode.js';

/** Whether calls in `scope` must leave the workspace unchanged (plan mode is on). */
export function readOnlyWorkspaceOf(scope: Context | undefined): boolean {
  const mode: PlanModeService | undefined = scope?.get('planMode');
  return mode?.active === true;
}

/** The refusal of a command or program in plan mode that no sandbox here could hold read-only. */
export function planModeUnconfinedMessage(what: string): string {
  return (
    `Plan mode keeps the workspace read-only, and no sandbox here can hold ${what} to that (bubblewrap is ` +
    'not available, or the sandbox is off), so it did not run. Read files with read, glob and grep instead; ' +
    'or install bubblewrap (apt-get install bubblewrap) with --sandbox auto; or leave plan mode (/plan, or approve a plan) to run it.'
  );
}
