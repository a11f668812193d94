// The command that trusts a workspace, as messages name it (docs/security.md, "Workspace trust"). In
// its own file at the bottom layer so that what only names the command (a saved workflow's note, a
// feature below trust) does not load the trust check and, through it, the shipped row kinds.

import { shellWord } from './shell-word.js';

/** `ptc trust <dir>`, quoted for a shell when it needs it. */
export function trustCommand(workspace: string): string {
  return `ptc trust ${shellWord(workspace)}`;
}
