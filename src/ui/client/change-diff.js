// The diff lines of a write or edit call for its card (docs/ui.md, "Diffs"), from the call's
// arguments as the log has them: an edit shows the text it replaces against its replacement (a
// line diff by the `diff` library), a write the lines it writes (all added when it created the
// file). The file's other lines are not in the log, so no line numbers are shown.

import { diffLines } from 'diff';

/**
 * @typedef {{ sign: '+' | '-' | ' ', text: string }} DiffLine
 * @returns {{ path: string, note?: string, lines: DiffLine[] } | undefined}
 */
export function changeDiff(tool, args, result) {
  if (args === null || typeof args !== 'object' || typeof args.path !== 'string') return undefined;
  const command = tool === 'str_replace_editor' ? args.command : undefined;
  if (tool === 'edit' || command === 'str_replace') {
    const from = tool === 'edit' ? args.old_string : args.old_str;
    const to = (tool === 'edit' ? args.new_string : args.new_str) ?? '';
    if (typeof from !== 'string' || typeof to !== 'string') return undefined;
    return { path: args.path, ...(args.replace_all === true ? { note: 'every occurrence' } : {}), lines: lineDiff(from, to) };
  }
  if (tool === 'write' || command === 'create') {
    const text = tool === 'write' ? args.content : args.file_text;
    if (typeof text !== 'string') return undefined;
    const created = createdOf(result);
    const note = created === true ? 'new file' : created === false ? 'replaces the whole file (its earlier text is not in the session log)' : undefined;
    return { path: args.path, ...(note ? { note } : {}), lines: lineDiff('', text) };
  }
  return undefined;
}

function lineDiff(from, to) {
  const lines = [];
  for (const part of diffLines(from, to)) {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    const text = part.value.endsWith('\n') ? part.value.slice(0, -1) : part.value;
    for (const line of text.split('\n')) lines.push({ sign, text: line });
  }
  return lines;
}

/** Whether the write created its file, when its result says: `Created a.txt (4 bytes).` (native) or JSON `created` (a program's sub-call). */
function createdOf(result) {
  if (typeof result !== 'string') return undefined;
  if (/^Created /.test(result)) return true;
  if (/^Replaced /.test(result)) return false;
  try {
    const value = JSON.parse(result);
    return typeof value?.created === 'boolean' ? value.created : undefined;
  } catch {
    return undefined;
  }
}
