// The contract of `str_replace_editor` (docs/builtin-tools.md): zod, the one source of its types and
// wire schemas.

import { z } from 'zod';

export const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'undo_edit'] as const;

export const input = z.strictObject({
  command: z.enum(COMMANDS).describe('The command to run: view, create, str_replace, insert or undo_edit.'),
  path: z.string().min(1).describe('File or directory, relative to the workspace or absolute.'),
  view_range: z
    .array(z.int())
    .min(2)
    .max(2)
    .optional()
    .describe('view of a file only: [start, end], 1-based and inclusive; end -1 shows to the end of the file.'),
  file_text: z.string().optional().describe('create only: the whole content of the new file.'),
  old_str: z
    .string()
    .min(1)
    .optional()
    .describe('str_replace only: the exact text to replace (without line-number prefixes); must occur exactly once.'),
  new_str: z
    .string()
    .optional()
    .describe('str_replace: the replacement text (default empty: delete old_str). insert: the text to insert (required).'),
  insert_line: z
    .int()
    .min(0)
    .optional()
    .describe('insert only: the line after which new_str goes; 0 inserts at the top, the line count appends.'),
});

export const output = z.strictObject({
  command: z.enum(COMMANDS),
  /** The path, relative to the workspace when inside it. */
  path: z.string().describe('The path, relative to the workspace when inside it.'),
  /** The message the model sees: a numbered view, a listing, or what changed with a snippet. */
  output: z.string().describe('What the command shows: a numbered view, a listing, or the edit with a snippet.'),
});
