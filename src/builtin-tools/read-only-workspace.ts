// What the tools that run commands and programs ask of plan mode (docs/plan-mode.md): whether the
// call's scope must leave the workspace unchanged, and what to say where no sandbox can hold that.
// Plan mode is a feature built on these tools (its plan_propose is a built-in contract), so they do
// not import it: they read its `planMode` service from the container by name, as a provider above
// passes it in (docs/architecture.md, "Layers").

import type { Context } from '../context/context.js';

/** What these tools read of the `planMode` service (src/plan-mode/plan-mode.ts provides it). */
interface PlanModeSwitch {
  readonly active: boolean;
}

/** Whether calls in `scope` must leave the workspace unchanged (plan mode is on). */
export function readOnlyWorkspaceOf(scope: Context | undefined): boolean {
  const mode = scope?.get('planMode') as PlanModeSwitch | undefined;
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
