// The `str_replace_editor` tool of the minimal preset: one tool with the five commands agents and
// benchmarks already use under this name (view, create, str_replace, insert, undo_edit), over the same
// race-safe path resolver and atomic write as `edit` and `write` (docs/file-tools.md). Semantics and
// where they differ from other implementations: docs/minimal-tools.md.

import * as fs from 'node:fs';

import { InvalidArgsError, ToolFailedError } from '../errors.js';
import { EDITOR_SNIPPET_CONTEXT_LINES, MAX_EDITOR_HISTORY_CHARS, MAX_TOOL_OUTPUT_CHARS } from './limits.js';
import { defineTool, type ToolDefinition, type ToolExecContext } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';
import { writeFileAtomicAt } from './atomic-write.js';
import { listDirectory } from './directory-listing.js';
import { EditorHistory } from './editor-history.js';
import { reportFileChange, textBefore, wantsFileChanges } from './file-change.js';
import { describeFsError } from './fs-errors.js';
import { createPathResolver, type FileToolOptions, type OpenedPath } from './path-resolver.js';
import { resolveForWrite } from './protected-write.js';
import { loadTextFile, shortenLine, splitLines } from './read.js';
import { at } from './safe-fs.js';

type Contract = typeof import('./contracts/str-replace-editor.js');
export type StrReplaceEditorCommand = Contract['COMMANDS'][number];
export type StrReplaceEditorArgs = ArgsOf<Contract>;
export type StrReplaceEditorOutput = ValueOf<Contract>;

export const STR_REPLACE_EDITOR_DESCRIPTION =
  'View, create and edit files. Commands:\n' +
  '- `view`: a file with line numbers (like `cat -n`), optionally only `view_range` [start, end] ' +
  '(1-based, end -1 = to the end of the file); or a directory, listed two levels deep without hidden entries.\n' +
  '- `create`: write a new file with `file_text` (missing parent directories are made). It refuses a path ' +
  'that exists: change existing files with str_replace or insert.\n' +
  '- `str_replace`: replace `old_str` with `new_str` (omit new_str to delete). old_str must match the file ' +
  'exactly, whitespace and indentation included, and exactly once: include enough surrounding lines to ' +
  'make it unique.\n' +
  '- `insert`: insert `new_str` as new lines after line `insert_line` (0 = at the top).\n' +
  '- `undo_edit`: revert the last create, str_replace or insert made on this file by this tool.\n' +
  'Paths are relative to the workspace or absolute.';

/** Which arguments each command takes; any other given argument is a mistake worth reporting. */
const ALLOWED: Record<StrReplaceEditorCommand, readonly string[]> = {
  view: ['view_range'],
  create: ['file_text'],
  str_replace: ['old_str', 'new_str'],
  insert: ['insert_line', 'new_str'],
  undo_edit: [],
};
const OPTIONAL_ARGS = ['view_range', 'file_text', 'old_str', 'new_str', 'insert_line'] as const;

export function createStrReplaceEditorTool(options: FileToolOptions): ToolDefinition<StrReplaceEditorArgs, StrReplaceEditorOutput> {
  const resolver = createPathResolver(options);
  const history = new EditorHistory(MAX_EDITOR_HISTORY_CHARS);

  type Shown = { path: string; output: string };
  const withPath = async (
    args: StrReplaceEditorArgs,
    exec: ToolExecContext,
    access: 'read' | 'write',
    create: boolean,
    use: (file: OpenedPath) => Promise<string>,
  ): Promise<Shown> => {
    const options = create ? { createParents: true } : {};
    const file =
      access === 'read'
        ? resolver.resolve(args.path, access, options)
        : await resolveForWrite(resolver, args.path, { tool: 'str_replace_editor', args: { ...args }, exec }, options);
    try {
      return { path: file.display, output: await use(file) };
    } finally {
      file.close();
    }
  };

  const commands = {
    view: (args: StrReplaceEditorArgs, exec: ToolExecContext) =>
      withPath(args, exec, 'read', false, async (file) => {
        if (file.stat?.isDirectory() === true) {
          if (args.view_range !== undefined) throw new InvalidArgsError('view_range only applies to files; omit it to list a directory.');
          return listDirectory(file);
        }
        const text = await loadEditable(file, 'view');
        return viewFile(file.display, text, args.view_range);
      }),

    create: (args: StrReplaceEditorArgs, exec: ToolExecContext) =>
      withPath(args, exec, 'write', true, async (file) => {
        const fileText = required(args, 'file_text');
        if (file.stat?.isDirectory() === true) throw new ToolFailedError(`${file.display} is a directory; create needs a file path.`);
        if (file.fd !== undefined) {
          throw new ToolFailedError(
            `${file.display} already exists; create does not overwrite. Use str_replace or insert to change it ` +
              '(view it first), or remove it with bash and create it again.',
          );
        }
        await writeText(file, fileText);
        reportFileChange(exec, file, null, fileText);
        history.push(file.real, undefined);
        return `File created successfully at: ${file.display}`;
      }),

    str_replace: (args: StrReplaceEditorArgs, exec: ToolExecContext) =>
      withPath(args, exec, 'write', false, async (file) => {
        const oldStr = required(args, 'old_str');
        const newStr = args.new_str ?? '';
        const text = await loadEditable(file, 'str_replace');
        const starts = occurrences(text, oldStr);
        if (starts.length === 0) {
          throw new ToolFailedError(
            `No replacement was performed: old_str did not appear verbatim in ${file.display} (0 matches). ` +
              'View the file to see its exact current text; whitespace, indentation and line breaks must match, ' +
              'and line-number prefixes from view are not part of the file.',
          );
        }
        if (starts.length > 1) {
          const lines = starts.map((start) => lineOf(text, start));
          throw new ToolFailedError(
            `No replacement was performed: old_str matches ${starts.length} times in ${file.display}, ` +
              `starting on lines ${lines.join(', ')}. Include more surrounding lines in old_str so that it matches exactly once.`,
          );
        }
        const start = starts[0] as number;
        const updated = text.slice(0, start) + newStr + text.slice(start + oldStr.length);
        await writeText(file, updated);
        reportFileChange(exec, file, text, updated);
        history.push(file.real, text);
        const firstLine = lineOf(text, start);
        return editedMessage(file.display, updated, firstLine, firstLine + lineCount(newStr) - 1);
      }),

    insert: (args: StrReplaceEditorArgs, exec: ToolExecContext) =>
      withPath(args, exec, 'write', false, async (file) => {
        const insertLine = required(args, 'insert_line');
        const newStr = required(args, 'new_str');
        const text = await loadEditable(file, 'insert');
        const total = splitLines(text).length;
        if (insertLine > total) {
          throw new InvalidArgsError(
            `insert_line ${insertLine} is beyond the end of ${file.display}, which has ${total} line${total === 1 ? '' : 's'}. ` +
              `Use 0 to insert at the top, or ${total} to append at the end.`,
          );
        }
        const updated = insertAfterLine(text, insertLine, newStr);
        await writeText(file, updated);
        reportFileChange(exec, file, text, updated);
        history.push(file.real, text);
        return editedMessage(file.display, updated, insertLine + 1, insertLine + lineCount(newStr));
      }),

    undo_edit: (args: StrReplaceEditorArgs, exec: ToolExecContext) =>
      withPath(args, exec, 'write', false, async (file) => {
        const entry = history.pop(file.real);
        if (entry === undefined) {
          throw new ToolFailedError(
            `No edit history found for ${file.display}: undo_edit reverts only the create, str_replace and insert ` +
              'commands this tool made on that file (older ones may have been dropped to bound memory).',
          );
        }
        try {
          if (entry.previous === undefined) {
            removeCreated(file);
            return `Last edit to ${file.display} undone: it was created by create, so it was removed.`;
          }
          const before = wantsFileChanges(exec) ? await textBefore(file) : undefined;
          await writeText(file, entry.previous);
          reportFileChange(exec, file, before, entry.previous);
        } catch (error) {
          history.restore(file.real, entry);
          throw error;
        }
        return `Last edit to ${file.display} undone successfully. ${viewFile(file.display, entry.previous, undefined)}`;
      }),
  } satisfies Record<StrReplaceEditorCommand, (args: StrReplaceEditorArgs, exec: ToolExecContext) => Promise<Shown>>;

  return defineTool<StrReplaceEditorArgs, StrReplaceEditorOutput>({
    name: 'str_replace_editor',
    description: STR_REPLACE_EDITOR_DESCRIPTION,
    ...contractSchemas('str-replace-editor', () => import('./contracts/str-replace-editor.js')),
    async execute(args, exec) {
      const stray = OPTIONAL_ARGS.filter((name) => args[name] !== undefined && !ALLOWED[args.command].includes(name));
      if (stray.length > 0) {
        throw new InvalidArgsError(
          `${args.command} does not take ${stray.join(', ')}; ` +
            (ALLOWED[args.command].length === 0 ? 'it takes only path.' : `it takes path and ${ALLOWED[args.command].join(', ')}.`),
        );
      }
      const { path, output } = await commands[args.command](args, exec);
      return { command: args.command, path, output };
    },
    renderContent(value) {
      return value.output;
    },
  });
}

function required<K extends 'file_text' | 'old_str' | 'new_str' | 'insert_line'>(
  args: StrReplaceEditorArgs,
  name: K,
): NonNullable<StrReplaceEditorArgs[K]> {
  const value = args[name];
  if (value === undefined) throw new InvalidArgsError(`${args.command} needs ${name}.`);
  return value as NonNullable<StrReplaceEditorArgs[K]>;
}

/** Loads a file for a command, with messages that point at this tool's own commands. */
async function loadEditable(file: OpenedPath, command: StrReplaceEditorCommand): Promise<string> {
  if (file.fd === undefined) {
    throw new ToolFailedError(`${file.display} does not exist. Use create to make a new file, or view a directory to find the right path.`);
  }
  if (file.stat?.isDirectory() === true) {
    throw new ToolFailedError(`${file.display} is a directory; ${command} needs a file. Use view to list the directory.`);
  }
  const { text, validUtf8 } = await loadTextFile(file, command === 'view' ? 'read' : 'edit');
  if (!validUtf8 && command !== 'view') {
    throw new ToolFailedError(`${file.display} is not valid UTF-8; editing it as text would corrupt it.`);
  }
  return text;
}

async function writeText(file: OpenedPath, text: string): Promise<void> {
  if (file.parentFd === undefined || file.name === undefined) throw new ToolFailedError(`${file.display} is a directory, not a file.`);
  try {
    await writeFileAtomicAt(file.parentFd, file.name, Buffer.from(text, 'utf8'), file.fd === undefined ? undefined : file.stat);
  } catch (error) {
    throw describeFsError(error, file.display, 'write');
  }
}

/** Undo of a create: removes the file through its checked directory, only if it is still a regular file. */
function removeCreated(file: OpenedPath): void {
  if (file.fd === undefined || file.parentFd === undefined || file.name === undefined) return;
  if (file.stat?.isFile() !== true) throw new ToolFailedError(`${file.display} is no longer a regular file; undo_edit left it alone.`);
  try {
    fs.unlinkSync(at(file.parentFd, file.name));
  } catch (error) {
    throw describeFsError(error, file.display, 'remove');
  }
}

/** Start offsets of the non-overlapping occurrences of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) starts.push(i);
  return starts;
}

/** 1-based line number of the character at `offset`. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Lines a text spans when it sits on lines of its own (a final newline ends the last line). */
function lineCount(text: string): number {
  return Math.max(splitLines(text).length, 1);
}

/**
 * `newStr` as whole lines after line `line` (0 = before the first). The file keeps its line-ending
 * style and whether it ended with a newline.
 */
function insertAfterLine(text: string, line: number, newStr: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const block = newStr.endsWith('\n') ? newStr : newStr + eol;
  if (line === 0) return block + text;
  let offset = 0;
  for (let n = 0; n < line; n++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) {
      // The last line has no newline: end it, and keep the file without a final newline.
      return text + eol + block.slice(0, block.length - (block.endsWith('\r\n') ? 2 : 1));
    }
    offset = next + 1;
  }
  return text.slice(0, offset) + block + text.slice(offset);
}

/** Numbered lines within the output budget; a note says where to continue when they do not fit. */
function numberedWithin(lines: readonly string[], firstLine: number, shown: string): string {
  const out: string[] = [];
  let chars = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = `${String(firstLine + i).padStart(6)}\t${shortenLine(lines[i] ?? '')}`;
    if (out.length > 0 && chars + line.length + 1 > MAX_TOOL_OUTPUT_CHARS) {
      const next = firstLine + i;
      out.push(`[Output cut at ${MAX_TOOL_OUTPUT_CHARS} characters: view ${shown} with view_range [${next}, -1] to see the rest.]`);
      break;
    }
    out.push(line);
    chars += line.length + 1;
  }
  return out.join('\n');
}

function viewFile(shown: string, text: string, range: readonly number[] | undefined): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${shown} is empty.`;
  if (range === undefined) return `Here's the result of running \`cat -n\` on ${shown}:\n${numberedWithin(lines, 1, shown)}`;
  const [start, end] = range as [number, number];
  const total = lines.length;
  if (start < 1 || start > total) {
    throw new InvalidArgsError(`view_range start ${start} is outside ${shown}, which has ${total} line${total === 1 ? '' : 's'}: use 1 to ${total}.`);
  }
  if (end !== -1 && (end < start || end > total)) {
    throw new InvalidArgsError(
      `view_range end ${end} is invalid for ${shown} (${total} lines): use a line from ${start} to ${total}, or -1 for the end of the file.`,
    );
  }
  const last = end === -1 ? total : end;
  return `Here's the result of running \`cat -n\` on ${shown} (lines ${start}-${last} of ${total}):\n${numberedWithin(lines.slice(start - 1, last), start, shown)}`;
}

/** The message after an edit: a numbered snippet of the changed lines with a little context. */
function editedMessage(shown: string, updated: string, firstChanged: number, lastChanged: number): string {
  const lines = splitLines(updated);
  const from = Math.max(1, firstChanged - EDITOR_SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length, Math.max(lastChanged, firstChanged) + EDITOR_SNIPPET_CONTEXT_LINES);
  const snippet = from > to ? `(${shown} is now empty)` : numberedWithin(lines.slice(from - 1, to), from, shown);
  return (
    `The file ${shown} has been edited. Here's the result of running \`cat -n\` on a snippet of ${shown}:\n${snippet}\n` +
    'Review the changes and make sure they are as expected. Edit the file again if necessary.'
  );
}
