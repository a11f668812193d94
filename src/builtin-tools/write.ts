// The `write` tool: create or replace a whole file, atomically, creating parent directories.

import { ToolFailedError } from '../errors.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';
import { writeFileAtomicAt } from './atomic-write.js';
import { reportFileChange, textBefore, wantsFileChanges } from './file-change.js';
import { describeFsError } from './fs-errors.js';
import { createPathResolver, type FileToolOptions } from './path-resolver.js';
import { resolveForWrite } from './protected-write.js';

type Contract = typeof import('./contracts/write.js');
export type WriteArgs = ArgsOf<Contract>;
export type WriteOutput = ValueOf<Contract>;

export const WRITE_DESCRIPTION =
  'Write a whole file: create it (and any missing parent directories) or replace its contents. ' +
  'The write is atomic and keeps an existing file\'s permissions. To change part of a file, use edit.';

export function createWriteTool(options: FileToolOptions): ToolDefinition<WriteArgs, WriteOutput> {
  const resolver = createPathResolver(options);
  return defineTool<WriteArgs, WriteOutput>({
    name: 'write',
    description: WRITE_DESCRIPTION,
    ...contractSchemas('write', () => import('./contracts/write.js')),
    async execute(args, exec) {
      const data = Buffer.from(args.content, 'utf8');
      const file = await resolveForWrite(resolver, args.path, { tool: 'write', args: { ...args }, exec }, { createParents: true });
      try {
        if (file.stat?.isDirectory() === true || file.parentFd === undefined || file.name === undefined) {
          throw new ToolFailedError(`${file.display} is a directory; write needs a file path inside it.`);
        }
        const before = wantsFileChanges(exec) ? await textBefore(file) : undefined;
        const { created } = await writeFileAtomicAt(file.parentFd, file.name, data, file.stat);
        reportFileChange(exec, file, created ? null : before, args.content);
        return { path: file.display, bytes: data.byteLength, created };
      } catch (error) {
        throw describeFsError(error, file.display, 'write');
      } finally {
        file.close();
      }
    },
    renderContent(value) {
      return `${value.created ? 'Created' : 'Replaced'} ${value.path} (${value.bytes} bytes).`;
    },
  });
}
