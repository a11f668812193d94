// One workflow file (docs/workflows.md, "Format"): a TypeScript (`.ts`) or Python (`.py`) program
// whose leading comment block is YAML between `---` lines — `name`, `description` and the `input`
// JSON Schema. The header is made of comment lines of the program's own language, so the whole file
// runs as it is and every line number of an error is the file's own.

import path from 'node:path';
import { yamlModule } from '../yaml-module.js';
import type { JsonSchema } from '../json.js';
import { MAX_WORKFLOW_DESCRIPTION_CHARS, MAX_WORKFLOW_NAME_CHARS } from './limits.js';
import type { PtcLanguage } from '../ptc-runtime/types.js';

/** The tool a workflow becomes: `workflow_<name>`. */
export const WORKFLOW_TOOL_PREFIX = 'workflow_';

/** The tool name of a workflow. */
export function workflowToolName(name: string): string {
  return `${WORKFLOW_TOOL_PREFIX}${name}`;
}

export const WORKFLOW_EXTENSIONS: Readonly<Record<string, PtcLanguage>> = { '.ts': 'typescript', '.py': 'python' };

/** The comment marker of each workflow language: header lines start with it. */
const COMMENT: Readonly<Record<string, string>> = { typescript: '//', python: '#' };

/** A language's comment marker; workflows are TypeScript or Python (WORKFLOW_EXTENSIONS), TypeScript's otherwise. */
function commentOf(language: PtcLanguage): string {
  return (Object.hasOwn(COMMENT, language) ? COMMENT[language] : undefined) ?? '//';
}

export interface WorkflowFile {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema of the input (an object schema: a tool's arguments). */
  readonly input: JsonSchema;
  readonly language: PtcLanguage;
  /** The file (absolute). */
  readonly file: string;
  /** The whole text: header comments and program. */
  readonly source: string;
}

/** A problem of a workflow file: `file:line: message`, reported as CONFIG. */
export interface WorkflowProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export function formatProblem(p: WorkflowProblem): string {
  return `CONFIG ${p.file}:${p.line}: ${p.message}`;
}

/** The language of a file name, or undefined when it is no workflow. */
export function languageOfFile(file: string): PtcLanguage | undefined {
  const ext = path.extname(file);
  return Object.hasOwn(WORKFLOW_EXTENSIONS, ext) ? WORKFLOW_EXTENSIONS[ext] : undefined;
}

/** lowercase letter first, then lowercase letters, digits and underscores: `tools.workflow_<name>` is an identifier in both languages. */
const NAME_SHAPE = /^[a-z][a-z0-9_]*$/;

/** Why `name` is not a valid workflow name, or undefined when it is. */
export function workflowNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  if (name.length > MAX_WORKFLOW_NAME_CHARS) return `is ${name.length} characters, more than ${MAX_WORKFLOW_NAME_CHARS}`;
  if (!NAME_SHAPE.test(name)) return 'must start with a lowercase letter and hold only lowercase letters, digits and underscores (e.g. count_todos)';
  return undefined;
}

/** Why `schema` cannot be a workflow's input, or undefined (ajv compiles it later; this is the shape a tool's arguments need). */
export function inputSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'must be a JSON Schema object, e.g. { type: object, properties: { path: { type: string } } }';
  if ((schema as { type?: unknown }).type !== 'object') return 'must have `type: object` (a tool takes an object of arguments); put each value under `properties`';
  return undefined;
}

export type ParsedWorkflow = { readonly workflow: WorkflowFile } | { readonly problem: WorkflowProblem };

/** Parses the text of `file`; a problem names the line and what to fix. */
export function parseWorkflowFile(file: string, text: string, language: PtcLanguage): ParsedWorkflow {
  const fail = (line: number, message: string): ParsedWorkflow => ({ problem: { file, line, message } });
  const marker = commentOf(language);
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const example = `${marker} ---`;
  const content = (line: string | undefined): string | undefined => {
    const trimmed = line?.trimStart();
    if (trimmed === undefined || !trimmed.startsWith(marker)) return undefined;
    const rest = trimmed.slice(marker.length);
    return rest.startsWith(' ') ? rest.slice(1) : rest;
  };
  if (content(lines[0])?.trim() !== '---') {
    return fail(1, `a workflow starts with a \`${example}\` line, then \`${marker} \`-comment lines of YAML with name, description and input, then \`${example}\``);
  }
  const header: string[] = [];
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    const line = content(lines[i]);
    if (line === undefined) return fail(i + 1, `the header opened on line 1 is not closed: every header line starts with \`${marker}\`; add a \`${example}\` line after the header`);
    if (line.trim() === '---') {
      end = i;
      break;
    }
    header.push(line);
  }
  if (end < 0) return fail(1, `the header opened on line 1 is not closed: add a \`${example}\` line after it`);
  const counter = new (yamlModule().LineCounter)();
  const doc = yamlModule().parseDocument(header.join('\n'), { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  // Header lines are offset by the opening `---` line.
  const lineOf = (offset: number | undefined) => (offset === undefined ? 2 : counter.linePos(offset).line + 1);
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    return fail(lineOf(error.pos[0]), `the header is not valid YAML (${error.message.split('\n')[0]}); fix it or quote the value`);
  }
  if (!yamlModule().isMap(doc.contents)) return fail(2, 'the header must be a YAML map with name, description and input');
  const map = doc.contents;
  const lineOfKey = (key: string): number => {
    const pair = map.items.find((p) => yamlModule().isScalar(p.key) && p.key.value === key);
    return lineOf((pair?.key as { range?: [number] } | undefined)?.range?.[0]);
  };
  const values = doc.toJS() as Record<string, unknown>;
  const unknown = Object.keys(values).filter((k) => !['name', 'description', 'input'].includes(k));
  if (unknown.length > 0) return fail(lineOfKey(unknown[0]!), `unknown header key ${JSON.stringify(unknown[0])}: a header has name, description and input only; remove it`);
  const { name, description, input } = values;
  if (typeof name !== 'string') return fail(Object.hasOwn(values, 'name') ? lineOfKey('name') : 2, 'add `name: <workflow_name>` (a string) to the header');
  const nameProblem = workflowNameProblem(name);
  if (nameProblem !== undefined) return fail(lineOfKey('name'), `name ${JSON.stringify(name)} ${nameProblem}`);
  if (typeof description !== 'string' || description.trim() === '') {
    return fail(Object.hasOwn(values, 'description') ? lineOfKey('description') : 2, 'add `description: <what it does and when to use it>` (a non-empty string) to the header');
  }
  if (description.length > MAX_WORKFLOW_DESCRIPTION_CHARS) {
    return fail(lineOfKey('description'), `description is ${description.length} characters, more than ${MAX_WORKFLOW_DESCRIPTION_CHARS}; shorten it`);
  }
  if (!Object.hasOwn(values, 'input')) return fail(2, 'add `input:` with the JSON Schema of the input (e.g. `input: { type: object, properties: {} }`) to the header');
  const inputProblem = inputSchemaProblem(input);
  if (inputProblem !== undefined) return fail(lineOfKey('input'), `input ${inputProblem}`);
  return { workflow: { name, description: description.trim().replace(/\s+/g, ' '), input: input as JsonSchema, language, file, source: text } };
}

/** The header a saved workflow gets (workflow_save), in the language's comments; the code follows it. */
export function renderWorkflowFile(fields: { name: string; description: string; input: JsonSchema }, code: string, language: PtcLanguage, yaml: (value: unknown) => string): string {
  const marker = commentOf(language);
  const body = yaml({ name: fields.name, description: fields.description, input: fields.input }).trimEnd().split('\n');
  const header = [`${marker} ---`, ...body.map((l) => (l === '' ? marker : `${marker} ${l}`)), `${marker} ---`];
  return `${header.join('\n')}\n${code.replace(/^\n+/, '').replace(/\s*$/, '')}\n`;
}
