// The `edit` tool: exact string replacement in one file, written back atomically.

import { InvalidArgsError, ToolFailedError } from '../errors.js';
import { defineTool, type ToolDefinition, type ToolExecContext } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';
import { writeFileAtomicAt } from './atomic-write.js';
import { reportFileChange } from './file-change.js';
import { describeFsError } from './fs-errors.js';
import { createPathResolver, type FileToolOptions, type OpenedPath } from './path-resolver.js';
import { resolveForWrite } from './protected-write.js';
import { loadTextFile } from './read.js';

type Contract = typeof import('./contracts/edit.js');
export type EditArgs = ArgsOf<Contract>;
export type EditOutput = ValueOf<Contract>;

export const EDIT_DESCRIPTION =
  'Replace exact text in a file. `old_string` must match the file exactly, whitespace and indentation ' +
  'included, and exactly once unless `replace_all` is true; include a few surrounding lines to make it ' +
  'unique. Read the file first to see its exact text. To create or rewrite a whole file, use write.';

export function createEditTool(options: FileToolOptions): ToolDefinition<EditArgs, EditOutput> {
  const resolver = createPathResolver(options);
  return defineTool<EditArgs, EditOutput>({
    name: 'edit',
    description: EDIT_DESCRIPTION,
    ...contractSchemas('edit', () => import('./contracts/edit.js')),
    async execute(args, exec) {
      if (args.old_string === args.new_string) {
        throw new InvalidArgsError('old_string and new_string are identical, so the edit would change nothing.');
      }
      const file = await resolveForWrite(resolver, args.path, { tool: 'edit', args: { ...args }, exec });
      try {
        return await editOpened(file, args, exec);
      } finally {
        file.close();
      }
    },
    renderContent(value) {
      return `Edited ${value.path}: ${value.replacements} replacement${value.replacements === 1 ? '' : 's'}.`;
    },
  });
}

/** The read-modify-write, through the descriptors the resolver opened: the file read is the file replaced. */
async function editOpened(file: OpenedPath, args: EditArgs, exec: ToolExecContext): Promise<EditOutput> {
  const { text, validUtf8 } = await loadTextFile(file, 'edit');
  if (!validUtf8) {
    throw new ToolFailedError(
      `${file.display} is not valid UTF-8; editing it as text would corrupt it. Use write to replace it whole.`,
    );
  }
  const count = countOccurrences(text, args.old_string);
  if (count === 0) throw new ToolFailedError(noMatchMessage(file.display, text, args.old_string));
  if (count > 1 && args.replace_all !== true) {
    throw new ToolFailedError(
      `old_string matches ${count} times in ${file.display}. Add surrounding lines to old_string so it ` +
        `matches exactly once, or set replace_all to true to replace all ${count}.`,
    );
  }
  // split/join rather than String.replace, which would interpret `$&` and friends in new_string.
  const updated = text.split(args.old_string).join(args.new_string);
  if (file.parentFd === undefined || file.name === undefined) throw new ToolFailedError(`${file.display} is a directory, not a file.`);
  try {
    await writeFileAtomicAt(file.parentFd, file.name, Buffer.from(updated, 'utf8'), file.stat);
  } catch (error) {
    throw describeFsError(error, file.display, 'edit');
  }
  reportFileChange(exec, file, text, updated);
  return { path: file.display, replacements: count };
}

/** Non-overlapping occurrences, the same ones split/join replaces. */
function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function noMatchMessage(shown: string, text: string, needle: string): string {
  let hint = 'Read the file to see its exact current text; whitespace, indentation and line breaks must match.';
  if (/^\s*\d+\t/.test(needle)) {
    hint += ' Do not include the line-number prefix that read adds.';
  }
  if (text.includes('\r\n') && needle.includes('\n') && !needle.includes('\r\n')) {
    hint += ' The file uses CRLF line endings: write line breaks in old_string as \\r\\n.';
  }
  return `old_string was not found in ${shown} (0 matches). ${hint}`;
}
