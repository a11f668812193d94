// The files this chat's session changed, for `/diff`: per file the text before the first change the
// chat saw and the text after the latest, from the `tools/file-change` events (docs/chat.md). Only
// changes made while this process had the session open; a resumed session's earlier turns are not
// in the log as texts.

import type { FileChangeEvent } from '../builtin-tools/file-change.js';

export interface FileChangeSummary {
  readonly path: string;
  /** null: the session created the file. */
  readonly oldText: string | null;
  readonly newText: string;
}

export class SessionChanges {
  private readonly files = new Map<string, { oldText: string | null; newText: string }>();

  record(event: FileChangeEvent): void {
    const known = this.files.get(event.path);
    this.files.set(event.path, { oldText: known !== undefined ? known.oldText : event.oldText, newText: event.newText });
  }

  /** In first-change order. */
  list(): FileChangeSummary[] {
    return [...this.files].map(([path, change]) => ({ path, ...change }));
  }

  clear(): void {
    this.files.clear();
  }
}
