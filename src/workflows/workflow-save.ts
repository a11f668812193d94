// The `workflow_save` tool (docs/workflows.md, "Saving a workflow"): a program that worked, saved as a
// typed tool for later sessions. Everything is checked first — the name, the input schema (ajv
// compiles it), the program (it compiles, and every `tools.<name>` is a tool of this session) — then a
// person is asked, every time and under every approval policy (the file becomes a tool of later
// sessions, and `.ptc` is a protected path), then the file is written atomically.

import fs from 'node:fs';
import path from 'node:path';
import { yamlModule } from '../yaml-module.js';
import { z } from 'zod';
import { writeFileAtomicAt } from '../builtin-tools/atomic-write.js';
import { describeFsError } from '../builtin-tools/fs-errors.js';
import { createPathResolver } from '../builtin-tools/path-resolver.js';
import { HarnessError, InvalidArgsError, PermissionDeniedError, ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { MAX_WORKFLOW_DESCRIPTION_CHARS, MAX_WORKFLOW_FILE_BYTES } from './limits.js';
import type { HarnessSettings } from '../harness-settings.js';
import type { PtcLanguage } from '../ptc-runtime/types.js';
import { replaceFile } from '../replace-file.js';
import { trustCommand } from '../trust-command.js';
import { compileSchema } from '../tools/schema-validator.js';
import { defineTool } from '../tools/types.js';
import { userWorkflowsDir, WORKSPACE_WORKFLOWS_DIR } from './workflow-dirs.js';
import { inputSchemaProblem, parseWorkflowFile, renderWorkflowFile, workflowNameProblem, workflowToolName } from './workflow-file.js';

export const WORKFLOW_SAVE_TOOL_NAME = 'workflow_save';

export const WORKFLOW_SAVE_DESCRIPTION =
  'Save a program that worked as the tool workflow_<name> of later sessions. `code`: a run_code program ' +
  'body that reads `input` (typed by the `input` JSON Schema) and returns the result. Checked, then the ' +
  'user is asked. `scope`: workspace (.ptc/workflows, default) or user.';

const saveInput = z.strictObject({
  name: z.string().describe('Lowercase letters, digits, _ (e.g. count_todos).'),
  description: z.string().describe('What it does and when to use it.'),
  input: z.record(z.string(), z.unknown()).describe('JSON Schema of the input, `type: object`.'),
  code: z.string().min(1).describe('The program body.'),
  language: z.enum(['typescript', 'python']).default('typescript'),
  scope: z.enum(['workspace', 'user']).default('workspace'),
  overwrite: z.boolean().default(false).describe('Replace an existing one.'),
});

const saveOutput = z.object({
  name: z.string(),
  tool: z.string(),
  file: z.string(),
  created: z.boolean(),
  note: z.string(),
});

export type WorkflowSaveResult = z.output<typeof saveOutput>;

const EXTENSION: Readonly<Record<PtcLanguage, string>> = { typescript: '.ts', python: '.py' };

export function createWorkflowSaveTool(settings: HarnessSettings) {
  const env = settings.env ?? process.env;
  return defineTool({
    name: WORKFLOW_SAVE_TOOL_NAME,
    description: WORKFLOW_SAVE_DESCRIPTION,
    input: saveInput,
    output: saveOutput,
    examples: [
      {
        name: 'count_todos',
        description: 'Count TODO lines in the files under a folder.',
        input: { type: 'object', properties: { dir: { type: 'string' } }, required: ['dir'] },
        code: "const hits = await tools.grep({ pattern: 'TODO', path: input.dir });\nreturn hits;",
      },
    ],
    async execute(args, exec) {
      const problem = workflowNameProblem(args.name);
      if (problem !== undefined) throw new InvalidArgsError(`workflow_save: name ${JSON.stringify(args.name)} ${problem}.`);
      const description = args.description.trim().replace(/\s+/g, ' ');
      if (description === '') throw new InvalidArgsError('workflow_save: description is empty; say what the workflow does and when to use it.');
      if (description.length > MAX_WORKFLOW_DESCRIPTION_CHARS) {
        throw new InvalidArgsError(`workflow_save: description is ${description.length} characters, more than ${MAX_WORKFLOW_DESCRIPTION_CHARS}; shorten it.`);
      }
      const schemaProblem = inputSchemaProblem(args.input);
      if (schemaProblem !== undefined) throw new InvalidArgsError(`workflow_save: input ${schemaProblem}.`);
      try {
        compileSchema(args.input as JsonSchema, 'input schema');
      } catch (error) {
        throw new InvalidArgsError(`workflow_save: ${error instanceof HarnessError ? error.message : String(error)}. Fix the input schema and call again.`);
      }
      const language = args.language;
      const text = renderWorkflowFile({ name: args.name, description, input: args.input as JsonSchema }, args.code, language, (v) => yamlModule().stringify(v, { lineWidth: 0 }));
      if (Buffer.byteLength(text) > MAX_WORKFLOW_FILE_BYTES) {
        throw new InvalidArgsError(`workflow_save: the workflow is ${Buffer.byteLength(text)} bytes, more than ${MAX_WORKFLOW_FILE_BYTES}; shorten the program.`);
      }
      const headerLines = text.split('\n').findIndex((l, i) => i > 0 && /^(\/\/|#) ---$/.test(l)) + 1;
      // What a later load does, so a saved workflow always loads.
      const parsed = parseWorkflowFile(`${args.name}${EXTENSION[language]}`, text, language);
      if ('problem' in parsed) throw new InvalidArgsError(`workflow_save: the header does not parse (${parsed.problem.message}); simplify the description or the schema.`);
      // The checker (acorn, the eraser, python3) loads only when a save is checked.
      const { checkWorkflowCode, referenceProblem } = await import('./workflow-check.js');
      const check = await checkWorkflowCode(text, language);
      const codeLine = (line: number) => `code line ${Math.max(1, line - headerLines)}`;
      if (!check.ok) {
        throw new InvalidArgsError(`workflow_save: the program does not compile: ${codeLine(check.line)}: ${check.message.replace(/[\s.]+$/, '')}. Fix the code and call again.`);
      }
      const visible = exec.scope?.tools.schemas(exec.scope).map((t) => t.name) ?? [];
      const refProblem = referenceProblem(check.refs, visible);
      if (refProblem !== undefined) throw new InvalidArgsError(`workflow_save: ${codeLine(refProblem.line)}: the program ${refProblem.message}.`);

      const dir = args.scope === 'workspace' ? path.join(settings.cwd, WORKSPACE_WORKFLOWS_DIR) : userWorkflowsDir(env);
      const file = path.join(dir, `${args.name}${EXTENSION[language]}`);
      const other = path.join(dir, `${args.name}${EXTENSION[language === 'python' ? 'typescript' : 'python']}`);
      if (fs.existsSync(other)) throw new ToolFailedError(`${other} already holds a workflow named ${args.name}; choose another name, or remove that file first.`);
      if (!args.overwrite && fs.existsSync(file)) throw new ToolFailedError(`${file} already exists; pass overwrite: true to replace it, or choose another name.`);

      const approvals = exec.scope?.get('approvals');
      const why = `workflow_save writes ${file}: it becomes the tool ${workflowToolName(args.name)} of later sessions${args.scope === 'workspace' ? ' (.ptc is a protected path)' : ''}`;
      if (approvals === undefined) {
        throw new PermissionDeniedError(
          `${why}, so a person approves each save, and no one can be asked here (ptc run, ptc exec, a library call without approvals). ` +
            'Nothing was written: save it from ptc chat, ptc ui or ptc acp and approve it, or write the file yourself (docs/workflows.md).',
        );
      }
      const reason = await approvals.confirm(
        {
          id: exec.callId,
          tool: WORKFLOW_SAVE_TOOL_NAME,
          args: { name: args.name, file, language, scope: args.scope, code: text },
          why,
          ...(exec.parent ? { parent: { id: exec.parent.id, tool: exec.parent.name } } : {}),
        },
        exec.signal,
        { always: true },
      );
      if (reason !== undefined) throw new PermissionDeniedError(`workflow_save of ${file} refused: ${reason}. Nothing was written.`);

      const created = args.scope === 'workspace' ? await writeInWorkspace(settings, `${args.name}${EXTENSION[language]}`, text, args.overwrite) : writeUserFile(file, text);
      const note =
        args.scope === 'workspace'
          ? `It loads in later sessions once the workspace is trusted again (saving changed its configuration): \`${trustCommand(settings.cwd)}\`.`
          : 'It loads in later sessions, in every workspace.';
      return { name: args.name, tool: workflowToolName(args.name), file, created, note };
    },
    renderContent: (v) => `${v.created ? 'Saved' : 'Replaced'} ${v.file}: the tool ${v.tool}. ${v.note}`,
  });
}

/** Through the race-safe resolver, inside the workspace (docs/file-tools.md); the person approved the protected path. */
async function writeInWorkspace(settings: HarnessSettings, name: string, text: string, overwrite: boolean): Promise<boolean> {
  const resolver = createPathResolver({ policy: settings.policy });
  const relative = path.join(WORKSPACE_WORKFLOWS_DIR, name);
  const file = resolver.resolve(relative, 'write', { createParents: true, allowProtected: true });
  try {
    if (file.stat?.isDirectory() === true || file.parentFd === undefined || file.name === undefined) {
      throw new ToolFailedError(`${file.display} is a directory; remove it or choose another name.`);
    }
    if (file.stat && !overwrite) throw new ToolFailedError(`${file.display} already exists; pass overwrite: true to replace it.`);
    const { created } = await writeFileAtomicAt(file.parentFd, file.name, text, file.stat);
    return created;
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw describeFsError(error, file.display, 'write');
  } finally {
    file.close();
  }
}

function writeUserFile(file: string, text: string): boolean {
  const created = !fs.existsSync(file);
  try {
    replaceFile(file, text, 0o644);
  } catch (error) {
    throw new ToolFailedError(`cannot write ${file}: ${(error as Error).message.split('\n')[0]}; check that folder's permissions.`);
  }
  return created;
}
