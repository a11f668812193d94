// Discovery (docs/workflows.md, "Where" and "Checks"): every `*.ts` and `*.py` of each layer's folder,
// parsed, its input schema compiled with ajv and its program compiled; a later layer overrides an
// earlier one by name. A file with a problem is reported with file:line and left out; the others load.
// The check of `tools.<name>` references needs the session's tools, so it is a second step
// (checkReferences) run once the preset is assembled.

import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../errors.js';
import { MAX_WORKFLOW_FILE_BYTES, MAX_WORKFLOWS_PER_DIR, WORKFLOW_CHECKS_AT_ONCE } from './limits.js';
import { compileSchema } from '../tools/schema-validator.js';
import { checkWorkflowCode, referenceProblem, type ToolReference } from './workflow-check.js';
import { workflowLayers, type WorkflowLayer, type WorkflowLayerName } from './workflow-dirs.js';
import { languageOfFile, parseWorkflowFile, type WorkflowFile, type WorkflowProblem } from './workflow-file.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface FoundWorkflow extends WorkflowFile {
  readonly layer: WorkflowLayerName;
  /** The files of lower layers (or of the same name earlier) this one overrides. */
  readonly overrides: readonly string[];
  /** The `tools.<name>` the program names. */
  readonly refs: readonly ToolReference[];
}

export interface BrokenWorkflow {
  readonly file: string;
  readonly layer: WorkflowLayerName;
  readonly problem: WorkflowProblem;
}

export interface WorkflowSet {
  readonly workflows: readonly FoundWorkflow[];
  readonly broken: readonly BrokenWorkflow[];
  readonly layers: readonly WorkflowLayer[];
}

export interface WorkflowSetOptions {
  readonly workspace: string;
  readonly env: Env;
  readonly trusted: boolean;
}

export async function loadWorkflowSet(options: WorkflowSetOptions): Promise<WorkflowSet> {
  const layers = workflowLayers(options);
  const byName = new Map<string, FoundWorkflow>();
  const broken: BrokenWorkflow[] = [];
  for (const layer of layers) {
    const files = workflowFilesIn(layer.dir);
    for (const file of files.slice(MAX_WORKFLOWS_PER_DIR)) {
      broken.push({ file, layer: layer.layer, problem: { file, line: 1, message: `more than ${MAX_WORKFLOWS_PER_DIR} workflows in ${layer.dir}; not read: remove some` } });
    }
    const checked: ReadResult[] = [];
    // A few at a time: each Python file is one python3 process.
    const read = files.slice(0, MAX_WORKFLOWS_PER_DIR);
    for (let at = 0; at < read.length; at += WORKFLOW_CHECKS_AT_ONCE) {
      checked.push(...(await Promise.all(read.slice(at, at + WORKFLOW_CHECKS_AT_ONCE).map((file) => readWorkflow(file)))));
    }
    for (const [i, result] of checked.entries()) {
      const file = files[i]!;
      if ('problem' in result) {
        broken.push({ file, layer: layer.layer, problem: result.problem });
        continue;
      }
      const earlier = byName.get(result.workflow.name);
      byName.set(result.workflow.name, { ...result.workflow, layer: layer.layer, overrides: earlier ? [...earlier.overrides, earlier.file] : [] });
    }
  }
  const workflows = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { workflows, broken, layers };
}

/**
 * Splits the set by the session's tools: a workflow whose program names a tool the session does not
 * have (or another workflow) is broken, with the line of that reference.
 */
export function checkReferences(set: WorkflowSet, visible: readonly string[]): WorkflowSet {
  const workflows: FoundWorkflow[] = [];
  const broken = [...set.broken];
  for (const workflow of set.workflows) {
    const problem = referenceProblem(workflow.refs, visible);
    if (problem === undefined) workflows.push(workflow);
    else broken.push({ file: workflow.file, layer: workflow.layer, problem: { file: workflow.file, ...problem } });
  }
  return { ...set, workflows, broken };
}

/** `<dir>/*.ts` and `<dir>/*.py` (regular files or links to them), sorted; a missing folder has none. */
function workflowFilesIn(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && languageOfFile(e.name) !== undefined && !e.name.startsWith('.'))
    .map((e) => path.join(dir, e.name))
    .sort();
}

type ReadResult = { readonly workflow: FoundWorkflow } | { readonly problem: WorkflowProblem };

async function readWorkflow(file: string): Promise<ReadResult> {
  const language = languageOfFile(file)!;
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_WORKFLOW_FILE_BYTES) return { problem: { file, line: 1, message: `is ${size} bytes, more than ${MAX_WORKFLOW_FILE_BYTES}; not registered: shorten the program` } };
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: { file, line: 1, message: `cannot be read (${(error as Error).message.split('\n')[0]}); not registered` } };
  }
  const parsed = parseWorkflowFile(file, text, language);
  if ('problem' in parsed) return parsed;
  const { workflow } = parsed;
  const stem = path.basename(file, path.extname(file));
  try {
    compileSchema(workflow.input, `input schema of workflow "${workflow.name}"`);
  } catch (error) {
    return { problem: { file, line: 2, message: `${error instanceof HarnessError ? error.message : String(error)}; fix the \`input\` schema of the header` } };
  }
  const check = await checkWorkflowCode(workflow.source, language);
  if (!check.ok) return { problem: { file, line: check.line, message: `${check.message.replace(/[\s.]+$/, '')}; the program does not compile, so workflow_${workflow.name} is not registered` } };
  if (stem !== workflow.name) {
    return { problem: { file, line: 2, message: `name ${JSON.stringify(workflow.name)} differs from the file name ${JSON.stringify(stem)}; rename the file to ${workflow.name}${path.extname(file)} or change the name` } };
  }
  return { workflow: { ...workflow, layer: 'user', overrides: [], refs: check.refs } };
}
