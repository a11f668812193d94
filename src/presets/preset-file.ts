// A preset file: YAML with a `description` and an ordered list of plugin rows. Parsed with node
// positions kept, so every error names the file, the line and — for a row — its number and name
// (docs/presets.md).

import path from 'node:path';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { readConfigText } from '../config-file.js';
import { ConfigError } from '../errors.js';
import { MAX_PRESET_FILE_BYTES } from '../limits.js';

/** One `plugins` entry: a shipped plugin name, a path to a plugin module, or a package name. */
export interface PresetRow {
  /** 1-based position in the list (what error messages call "row N"). */
  readonly index: number;
  readonly name: string;
  readonly config?: unknown;
  /** Where the row is written: `file:line`, for messages. */
  readonly at: string;
  /** Relative module paths in `name` resolve against this directory. */
  readonly baseDir: string;
}

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

/** Parses preset YAML read from `file` (used for positions in messages and to resolve relative rows). */
export function parsePresetText(text: string, file: string): PresetFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const lineAt = (offset: number | undefined): number => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.linePos?.[0].line ?? lineAt(first.pos[0]);
    const reason = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(`${file}:${line}: YAML syntax error: ${reason}. Fix the file (preset format: docs/presets.md).`);
  }
  const parsed = presetSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = describeIssuePath(issue.path, doc);
    const line = lineAt(nodeOffset(doc, issue.path));
    throw new ConfigError(`${file}:${line}: ${where}${issue.message}. A preset has \`description\` and \`plugins: [{ name, config? }]\` (docs/presets.md).`);
  }
  const baseDir = path.dirname(file);
  const rows = parsed.data.plugins.map((row, i): PresetRow => ({
    index: i + 1,
    name: row.name,
    ...(row.config === undefined || row.config === null ? {} : { config: row.config }),
    at: `${file}:${lineAt(nodeOffset(doc, ['plugins', i]))}`,
    baseDir,
  }));
  return { name: presetNameOf(file), description: parsed.data.description, file, rows };
}

/** The start offset of the deepest node that exists along `keys`. */
function nodeOffset(doc: Document, keys: readonly PropertyKey[]): number | undefined {
  for (let n = keys.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(keys.slice(0, n) as (string | number)[], true);
    if (isNode(node) && node.range) return node.range[0];
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
