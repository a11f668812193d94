// A preset file: YAML with a `description` and an ordered list of plugin rows. Parsed with node
// positions kept, so every error names the file, the line and — for a row — its number and name
// (docs/presets.md).

import path from 'node:path';
import type { Document } from 'yaml';
import { yamlModule } from '../yaml-module.js';
import { z } from 'zod';
import { readConfigText } from '../config-file.js';
import { ConfigError } from '../errors.js';
import { MAX_PRESET_FILE_BYTES } from '../limits.js';
import type { PresetRow } from '../row-kind.js';
import { rememberedPresetParse } from './remembered-parses.js';

export type { PresetRow } from '../row-kind.js';

export interface PresetFile {
  readonly name: string;
  readonly description: string;
  /** Absolute path of the file. */
  readonly file: string;
  readonly rows: readonly PresetRow[];
}

const rowSchema = z.strictObject({
  name: z.string().trim().min(1, 'a row needs a non-empty name'),
  config: z.unknown().optional(),
});

const presetSchema = z.strictObject({
  description: z.string().trim().min(1, 'describe the preset in one line'),
  plugins: z.array(rowSchema).min(1, 'list at least one plugin row'),
});

/** The preset name a file stands for: its base name without `.yml`/`.yaml`. */
export function presetNameOf(file: string): string {
  return path.basename(file).replace(/\.ya?ml$/i, '');
}

/** Reads and validates a preset file; any problem is CONFIG naming `file:line`. */
export function readPresetFile(file: string): PresetFile {
  const { absolute, text } = readConfigText(file, 'preset file', MAX_PRESET_FILE_BYTES, 'a preset is a short list of rows');
  return parsePresetText(text, absolute);
}

/**
 * Parses preset YAML read from `file` (used for positions in messages and to resolve relative rows).
 * Text byte-for-byte equal to a shipped preset's skips the YAML parse (remembered-parses.ts); the
 * schema check below runs either way.
 */
export function parsePresetText(text: string, file: string): PresetFile {
  const remembered = rememberedPresetParse(text);
  if (remembered !== undefined) {
    const parsed = presetSchema.safeParse(remembered.data);
    if (parsed.success && parsed.data.plugins.length === remembered.rowLines.length) return presetFileOf(parsed.data, file, (i) => remembered.rowLines[i]!);
  }
  return parsePresetYaml(text, file);
}

/** parsePresetText without the remembered parses: the YAML parsed here, every time. */
export function parsePresetYaml(text: string, file: string): PresetFile {
  const { doc, data, lineAt } = parseYaml(text, file);
  const parsed = presetSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = describeIssuePath(issue.path, doc);
    const line = lineAt(nodeOffset(doc, issue.path));
    // zod's message for unknown keys quotes them. Inside a row the file already has a preset's shape
    // and the key is most likely a typo worth naming; at the top level it could be anything.
    const message = issue.code === 'unrecognized_keys' && issue.path[0] !== 'plugins' ? 'unknown key (a preset has only `description` and `plugins`)' : issue.message;
    throw new ConfigError(`${file}:${line}: ${where}${message}. A preset has \`description\` and \`plugins: [{ name, config? }]\` (docs/presets.md).`);
  }
  return presetFileOf(parsed.data, file, (i) => lineAt(nodeOffset(doc, ['plugins', i])));
}

/**
 * What render-shipped-parses.ts remembers of a valid preset text: the data its YAML stands for and
 * the line of each row. Throws as parsePresetYaml does for a text that is not a valid preset.
 */
export function presetParseFacts(text: string, file: string): { data: unknown; rowLines: number[] } {
  const { doc, data, lineAt } = parseYaml(text, file);
  const parsed = presetSchema.safeParse(data);
  if (!parsed.success) throw new ConfigError(`${file}: not a valid preset; check it with \`ptc presets show\` (docs/presets.md).`);
  return { data, rowLines: parsed.data.plugins.map((_, i) => lineAt(nodeOffset(doc, ['plugins', i]))) };
}

function parseYaml(text: string, file: string): { doc: Document; data: unknown; lineAt: (offset: number | undefined) => number } {
  const yaml = yamlModule();
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const lineAt = (offset: number | undefined): number => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  // Messages name the place and the kind of problem, never the file's text: a file that is not a
  // preset at all (a key file named by mistake) must not be shown (docs/security.md, "Limits that hold").
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.linePos?.[0].line ?? lineAt(first.pos[0]);
    throw new ConfigError(`${file}:${line}: YAML syntax error: ${yamlProblem(first.code)}. Fix the file (preset format: docs/presets.md).`);
  }
  try {
    return { doc, data: doc.toJS(), lineAt };
  } catch (error) {
    // An alias to no anchor, or aliases that expand past the parser's bound.
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(`${file}: YAML error: ${yamlProblem(typeof code === 'string' ? code : 'BAD_ALIAS')}. Fix the file (preset format: docs/presets.md).`);
  }
}

function presetFileOf(data: z.infer<typeof presetSchema>, file: string, rowLine: (index: number) => number): PresetFile {
  const baseDir = path.dirname(file);
  const rows = data.plugins.map((row, i): PresetRow => ({
    index: i + 1,
    name: row.name,
    ...(row.config === undefined || row.config === null ? {} : { config: row.config }),
    at: `${file}:${rowLine(i)}`,
    baseDir,
  }));
  return { name: presetNameOf(file), description: data.description, file, rows };
}

/** What each YAML error code means, in words that quote nothing of the file. */
const YAML_PROBLEMS: Readonly<Record<string, string>> = {
  ALIAS_PROPS: 'an alias cannot have an anchor or a tag',
  BAD_ALIAS: 'an alias refers to no anchor before it, or aliases expand too far',
  BAD_DIRECTIVE: 'a bad % directive',
  BAD_DQ_ESCAPE: 'a bad escape in a double-quoted string',
  BAD_INDENT: 'bad indentation, or a flow collection ({...} or [...]) left open',
  BAD_PROP_ORDER: 'an anchor or tag in the wrong place',
  BAD_SCALAR_START: 'a plain value cannot start with this character; quote it',
  BLOCK_AS_IMPLICIT_KEY: 'a block cannot be a key',
  BLOCK_IN_FLOW: 'a block inside a flow collection ({...} or [...])',
  DUPLICATE_KEY: 'a key appears twice',
  IMPOSSIBLE: 'the parser failed',
  KEY_OVER_1024_CHARS: 'a key longer than 1024 characters',
  MISSING_CHAR: 'a closing quote or bracket is missing',
  MULTILINE_IMPLICIT_KEY: 'a key spans lines',
  MULTIPLE_ANCHORS: 'a node has two anchors',
  MULTIPLE_DOCS: 'the file holds more than one YAML document',
  MULTIPLE_TAGS: 'a node has two tags',
  NON_STRING_KEY: 'a key that is not a string',
  RESOURCE_EXHAUSTION: 'aliases expand too far',
  TAB_AS_INDENT: 'a tab used as indentation',
  TAG_RESOLVE_FAILED: 'a tag that cannot be resolved',
  UNEXPECTED_TOKEN: 'something unexpected here (a stray character, or a value where a key belongs)',
  BAD_COLLECTION_TYPE: 'a collection of the wrong kind',
};

function yamlProblem(code: string): string {
  return Object.hasOwn(YAML_PROBLEMS, code) ? YAML_PROBLEMS[code]! : 'the file is not valid YAML';
}

/** The start offset of the deepest node that exists along `keys`. */
function nodeOffset(doc: Document, keys: readonly PropertyKey[]): number | undefined {
  for (let n = keys.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(keys.slice(0, n) as (string | number)[], true);
    if (yamlModule().isNode(node) && node.range) return node.range[0];
  }
  return undefined;
}

function describeIssuePath(keys: readonly PropertyKey[], doc: Document): string {
  if (keys[0] === 'plugins' && typeof keys[1] === 'number') {
    const name = doc.getIn(['plugins', keys[1], 'name']);
    const label = typeof name === 'string' ? ` ${JSON.stringify(name)}` : '';
    const rest = keys.slice(2).map(String).join('.');
    return `row ${keys[1] + 1}${label}${rest ? ` ${rest}` : ''}: `;
  }
  return keys.length > 0 ? `${keys.map(String).join('.')}: ` : '';
}
