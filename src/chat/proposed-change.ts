// What a write or edit call would do to its file, for the approval prompt's diff (docs/chat.md,
// "Diffs"): the file's current text read now, and the text the call would leave. Only for a regular
// UTF-8 file of at most MAX_FILE_CHANGE_TEXT_BYTES; opened non-blocking so a FIFO the model names
// cannot hang the prompt. The tool itself checks again when it runs; this is only what is shown.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';

import type { JsonValue } from '../json.js';
import { MAX_FILE_CHANGE_TEXT_BYTES } from '../builtin-tools/limits.js';

export type ProposedChange =
  | { readonly kind: 'change'; readonly path: string; readonly oldText: string | null; readonly newText: string }
  /** No diff can be shown; `note` says why (for the person). */
  | { readonly kind: 'note'; readonly path: string; readonly note: string };

/** The change `tool` with `args` would make under workspace `cwd`; undefined for a call that writes no file's text. */
export async function proposedChange(cwd: string, tool: string, args: JsonValue): Promise<ProposedChange | undefined> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const str = (name: string): string | undefined => (typeof args[name] === 'string' ? (args[name] as string) : undefined);
  const file = str('path');
  if (file === undefined) return undefined;
  const command = tool === 'str_replace_editor' ? str('command') : undefined;
  if (tool === 'write' || command === 'create') {
    const newText = tool === 'write' ? str('content') : str('file_text');
    if (newText === undefined) return undefined;
    const old = await currentText(cwd, file);
    return typeof old === 'object' && old !== null ? { kind: 'note', path: file, note: old.note } : { kind: 'change', path: file, oldText: old, newText };
  }
  const [from, to, all] = tool === 'edit' ? [str('old_string'), str('new_string'), args['replace_all'] === true] : command === 'str_replace' ? [str('old_str'), str('new_str') ?? '', false] : [];
  if (from === undefined || to === undefined || from === '') return undefined;
  const old = await currentText(cwd, file);
  if (old === null) return { kind: 'note', path: file, note: 'the file does not exist' };
  if (typeof old === 'object') return { kind: 'note', path: file, note: old.note };
  const count = old.split(from).length - 1;
  if (count === 0) return { kind: 'note', path: file, note: 'the text to replace is not in the file now' };
  if (count > 1 && !all) return { kind: 'note', path: file, note: `the text to replace occurs ${count} times` };
  // split/join, not String.replace: `$&` in the model's text must stay literal.
  const newText = all ? old.split(from).join(to) : old.replace(from, () => to);
  return { kind: 'change', path: file, oldText: old, newText };
}

/** The file's text; null when it does not exist; a note when it cannot be shown. */
async function currentText(cwd: string, file: string): Promise<string | null | { note: string }> {
  let handle;
  try {
    handle = await open(path.resolve(cwd, file), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    return { note: `the file cannot be read now (${code ?? 'error'})` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { note: 'not a regular file' };
    if (stat.size > MAX_FILE_CHANGE_TEXT_BYTES) return { note: `the file is over ${MAX_FILE_CHANGE_TEXT_BYTES} bytes` };
    const bytes = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(bytes, 0, stat.size, 0);
    const data = bytes.subarray(0, bytesRead);
    if (data.includes(0)) return { note: 'a binary file' };
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data);
    } catch {
      return { note: 'not UTF-8 text' };
    }
  } finally {
    await handle.close();
  }
}
