// `tools/file-change`: what a file tool's successful write did to one file, old and new text, for
// front-ends that show diffs (ptc acp, docs/acp.md "Diffs"). The tools already hold both texts (edit,
// str_replace_editor) or the descriptor of the file they replace (write), so nothing reads a path again.
// Heard only when someone listens; a text over MAX_FILE_CHANGE_TEXT_BYTES or not UTF-8 sends nothing.

import { MAX_FILE_CHANGE_TEXT_BYTES } from './limits.js';
import type { ToolExecContext } from '../tools/types.js';
import type { OpenedPath } from './path-resolver.js';
import { readAllFd } from './safe-fs.js';

export interface FileChangeEvent {
  /** The call that wrote (`<parent>:ptc:<n>` for a program's sub-call). */
  readonly callId: string;
  /** The run_code call, for a program's sub-call. */
  readonly parentId?: string;
  /** The path as given, absolute (OpenedPath.absolute). */
  readonly path: string;
  /** The text before; null for a file the call created. */
  readonly oldText: string | null;
  readonly newText: string;
}

declare module '../context/context.js' {
  interface Events {
    /** A file tool changed a file (log-only, never model history). */
    'tools/file-change'(event: FileChangeEvent): void;
  }
}

/** Whether anyone hears file changes in this call's container (the old text is read only then). */
export function wantsFileChanges(exec: ToolExecContext): boolean {
  return (exec.scope?.listeners('tools/file-change').length ?? 0) > 0;
}

/**
 * The text of the file `file` holds before it is replaced: null when it does not exist, undefined
 * when there is no diff to show (not a regular file, too large, binary or not UTF-8). Read through
 * the descriptor the resolver opened, so it is the object the write replaces.
 */
export async function textBefore(file: OpenedPath): Promise<string | null | undefined> {
  if (file.fd === undefined || file.stat === undefined) return null;
  if (!file.stat.isFile() || file.stat.size > MAX_FILE_CHANGE_TEXT_BYTES) return undefined;
  const bytes = await readAllFd(file.fd, MAX_FILE_CHANGE_TEXT_BYTES, file.stat.size).catch(() => undefined);
  if (bytes === undefined || bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Emits the change, when it is small enough to show. */
export function reportFileChange(exec: ToolExecContext, file: OpenedPath, oldText: string | null | undefined, newText: string): void {
  if (oldText === undefined || exec.scope === undefined) return;
  if (Buffer.byteLength(newText) > MAX_FILE_CHANGE_TEXT_BYTES || (oldText !== null && Buffer.byteLength(oldText) > MAX_FILE_CHANGE_TEXT_BYTES)) return;
  exec.scope.emit('tools/file-change', {
    callId: exec.callId,
    ...(exec.parent !== undefined ? { parentId: exec.parent.id } : {}),
    path: file.absolute,
    oldText,
    newText,
  });
}
