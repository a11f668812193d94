// One SKILL.md of the Agent Skills format (docs/skills.md, "Format"): YAML front matter between `---`
// lines with `name` and `description` (others such as `license`, `allowed-tools`, `metadata` are
// kept, not interpreted), then a markdown body. A problem is a warning naming the file and line, so
// one bad skill never stops the others from loading.

import path from 'node:path';
import { yamlModule } from '../yaml-module.js';
import { rememberedFrontMatter } from './remembered-front-matter.js';
import { MAX_SKILL_DESCRIPTION_CHARS, MAX_SKILL_NAME_CHARS } from './limits.js';

export const SKILL_FILE_NAME = 'SKILL.md';

export interface SkillFile {
  readonly name: string;
  readonly description: string;
  /** The SKILL.md (absolute). */
  readonly file: string;
  /** The folder holding it: the files beside the body are here. */
  readonly dir: string;
  /** The markdown after the front matter. */
  readonly body: string;
  /** The other front-matter keys, as written. */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** A CONFIG warning: `file:line: message`. */
export interface SkillWarning {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export function formatWarning(w: SkillWarning): string {
  return `CONFIG ${w.file}:${w.line}: ${w.message}`;
}

/** lowercase letters, digits and single hyphens, not at either end. */
const NAME_SHAPE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Why `name` is not a valid skill name, or undefined when it is. */
export function skillNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  if (name.length > MAX_SKILL_NAME_CHARS) return `is ${name.length} characters, more than ${MAX_SKILL_NAME_CHARS}`;
  if (!NAME_SHAPE.test(name)) return 'must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen (e.g. pdf-forms)';
  return undefined;
}

export type ParsedSkill = { readonly skill?: SkillFile; readonly warnings: readonly SkillWarning[] };

/** Parses the text of `file` (a SKILL.md); no skill when the front matter is unusable. */
export function parseSkillFile(file: string, text: string): ParsedSkill {
  const warnings: SkillWarning[] = [];
  const warn = (line: number, message: string): ParsedSkill => {
    warnings.push({ file, line, message });
    return { warnings };
  };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return warn(1, 'a SKILL.md starts with a `---` line, then YAML front matter with `name` and `description`, then `---`');
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (end < 0) return warn(1, 'the front matter opened on line 1 is not closed: add a `---` line after it');
  const yamlText = lines.slice(1, end).join('\n');
  // A shipped skill's front matter is not parsed again (remembered-front-matter.ts).
  const front = rememberedFrontMatter(yamlText) ?? parseFrontMatter(yamlText);
  if ('warning' in front) return warn(front.warning.line, front.warning.message);
  const { values } = front;
  const lineOfKey = (key: string): number => front.keyLines[key] ?? 1;
  const { name, description, ...extra } = values;
  if (typeof name !== 'string') return warn(Object.hasOwn(values, 'name') ? lineOfKey('name') : 2, 'add `name: <skill-name>` (a string) to the front matter');
  const nameProblem = skillNameProblem(name);
  if (nameProblem !== undefined) return warn(lineOfKey('name'), `name ${JSON.stringify(name)} ${nameProblem}`);
  if (typeof description !== 'string' || description.trim() === '') {
    return warn(Object.hasOwn(values, 'description') ? lineOfKey('description') : 2, 'add `description: <what it does and when to use it>` (a non-empty string) to the front matter');
  }
  if (description.length > MAX_SKILL_DESCRIPTION_CHARS) {
    return warn(lineOfKey('description'), `description is ${description.length} characters, more than ${MAX_SKILL_DESCRIPTION_CHARS}; shorten it`);
  }
  const dir = path.dirname(file);
  if (path.basename(dir) !== name) {
    // Other agents load such skills too; say so, but load it.
    warnings.push({ file, line: lineOfKey('name'), message: `name ${JSON.stringify(name)} differs from its folder ${JSON.stringify(path.basename(dir))}; the name is used` });
  }
  const body = lines.slice(end + 1).join('\n').replace(/^\n+/, '');
  return { skill: { name, description: description.trim().replace(/\s+/g, ' '), file, dir, body, extra }, warnings };
}

/** What skill checks need of front matter: its values and the line of each top-level key. */
export type FrontMatter = { readonly values: Record<string, unknown>; readonly keyLines: Readonly<Record<string, number>> };

/** Parses front matter YAML (the lines between the `---` lines); a problem is a warning with its line. */
export function parseFrontMatter(yamlText: string): FrontMatter | { readonly warning: { readonly line: number; readonly message: string } } {
  const yaml = yamlModule();
  const counter = new yaml.LineCounter();
  const doc = yaml.parseDocument(yamlText, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  // Front matter lines are offset by the opening `---`.
  const lineOf = (offset: number | undefined) => (offset === undefined ? 1 : counter.linePos(offset).line + 1);
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    return { warning: { line: lineOf(error.pos[0]), message: `front matter is not valid YAML (${error.message.split('\n')[0]}); fix it or quote the value` } };
  }
  if (!yaml.isMap(doc.contents)) return { warning: { line: 2, message: 'front matter must be a map with `name` and `description`' } };
  const keyLines: Record<string, number> = {};
  for (const pair of doc.contents.items) {
    if (!yaml.isScalar(pair.key) || typeof pair.key.value !== 'string') continue;
    const key = pair.key.value;
    // The first pair of a key wins, as a search of the items does.
    if (Object.hasOwn(keyLines, key)) continue;
    keyLines[key] = lineOf((pair.value as { range?: [number] } | null | undefined)?.range?.[0] ?? pair.key.range?.[0]);
  }
  return { values: doc.toJS() as Record<string, unknown>, keyLines };
}
