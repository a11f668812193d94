// A file change as a unified diff for the terminal (`ptc chat`: after each write/edit, in approval
// prompts, `/diff`). The hunks come from the `diff` library; every line is escaped with visible()
// because the text is the model's (docs/security.md, "Approval edges"), and long diffs are cut.

import { structuredPatch } from 'diff';

import { MAX_CHAT_DIFF_LINES, MAX_DIFF_EDIT_LENGTH } from './limits.js';
import { sgr, visible } from '../terminal-text.js';

export interface DiffRenderOptions {
  /** Colour added lines green, removed ones red, hunk headers cyan. */
  readonly color?: boolean;
  /** Lines of hunks shown; default MAX_CHAT_DIFF_LINES. */
  readonly maxLines?: number;
  /** Unchanged lines around each change; default 3. */
  readonly context?: number;
}

/**
 * The unified diff of `oldText` (null: the file is new) to `newText` under `label` (a path), as lines
 * ready to print; a note line instead when nothing changed or the change is too large to diff.
 */
export function renderUnifiedDiff(label: string, oldText: string | null, newText: string, options: DiffRenderOptions = {}): string[] {
  const name = visible(label);
  const patch = structuredPatch(oldText === null ? '/dev/null' : `a/${label}`, `b/${label}`, oldText ?? '', newText, undefined, undefined, {
    context: options.context ?? 3,
    maxEditLength: MAX_DIFF_EDIT_LENGTH,
  });
  if (patch === undefined) return [`(${name}: the change is too large to show as a diff)`];
  if (patch.hunks.length === 0) return [`(${name}: no change)`];
  const color = options.color === true;
  const paint = (line: string): string => {
    if (!color) return line;
    if (line.startsWith('+')) return sgr.green(line);
    if (line.startsWith('-')) return sgr.red(line);
    if (line.startsWith('@@')) return sgr.cyan(line);
    return line;
  };
  const header = [oldText === null ? '--- /dev/null' : `--- a/${name}`, `+++ b/${name}`].map((l) => (color ? sgr.bold(l) : l));
  const body: string[] = [];
  for (const hunk of patch.hunks) {
    // An empty side starts at line 0 in unified diff notation (the library counts from 1).
    const start = (line: number, count: number) => (count === 0 ? line - 1 : line);
    body.push(`@@ -${start(hunk.oldStart, hunk.oldLines)},${hunk.oldLines} +${start(hunk.newStart, hunk.newLines)},${hunk.newLines} @@`);
    // The library marks a missing final newline with a `\ No newline at end of file` line of its own.
    for (const line of hunk.lines) body.push(line.startsWith('\\') ? line : `${line[0] ?? ' '}${visible(line.slice(1))}`);
  }
  const max = options.maxLines ?? MAX_CHAT_DIFF_LINES;
  const shown = body.slice(0, max).map(paint);
  if (body.length > max) shown.push(`… ${body.length - max} more diff lines not shown`);
  return [...header, ...shown];
}
