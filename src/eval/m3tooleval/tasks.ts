// The 82 M3ToolEval tasks, read from data/m3tooleval/tasks.json (shipped with the package). The file
// is parsed as Python literals so that an expected 8100.0 stays a float and 3 an int: the answer
// check depends on the difference. docs/eval.md.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../errors.js';
import { pyStr, type PyValue } from './py-value.js';
import { literalEval } from './python-literal.js';

/** The five domains, named as the task names' first segment. */
export const DOMAINS = [
  'message_decoder',
  'cryptobotanists_plant_dna_sequencer',
  'trade_calculator',
  'travel_itinerary_planning',
  'web_browsing',
] as const;
export type Domain = (typeof DOMAINS)[number];

export interface TaskTool {
  readonly name: string;
  readonly description: string;
  /** The Python signature the original prompt showed. */
  readonly signature: string;
}

export interface M3Task {
  /** `<domain>/<task>`, e.g. `trade_calculator/estimate_final_value`. */
  readonly name: string;
  readonly domain: Domain;
  readonly instruction: string;
  /** The expected value as the original Python held it. */
  readonly expected: PyValue;
  readonly tools: readonly TaskTool[];
}

/** data/m3tooleval at the package root: the same from src/eval/m3tooleval and dist/eval/m3tooleval. */
export function dataDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'data', 'm3tooleval');
}

/**
 * The original computed find_most_common_nucleotide_combined_sequence's expected value as a tuple;
 * the JSON dump keeps it as the string "('A', 3)". The checker treats a tuple and its str
 * differently (int() of a tuple raises TypeError before literal_eval runs), so it is restored.
 */
const TUPLE_EXPECTED = new Set(['cryptobotanists_plant_dna_sequencer/find_most_common_nucleotide_combined_sequence']);

let cached: readonly M3Task[] | undefined;

/** Every task, in the file's order. Throws CONFIG when the data folder is missing or malformed. */
export function loadTasks(): readonly M3Task[] {
  if (cached) return cached;
  const file = path.join(dataDir(), 'tasks.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`The M3ToolEval data is missing: ${file} cannot be read. Reinstall ptc-harness (the package ships data/m3tooleval).`);
  }
  const root = literalEval(text, { json: true });
  if (root.t !== 'list') throw new ConfigError(`${file}: expected a JSON array of tasks.`);
  cached = root.v.map((entry, i) => toTask(entry, `${file}: task ${i + 1}`));
  return cached;
}

function field(entry: PyValue, key: string, where: string): PyValue {
  if (entry.t !== 'dict') throw new ConfigError(`${where}: expected an object.`);
  const found = entry.v.find(([k]) => k.t === 'str' && k.v === key);
  if (!found) throw new ConfigError(`${where}: missing "${key}".`);
  return found[1];
}

function text(value: PyValue, where: string): string {
  if (value.t !== 'str') throw new ConfigError(`${where}: expected a string.`);
  return value.v;
}

function toTask(entry: PyValue, where: string): M3Task {
  const name = text(field(entry, 'name', where), `${where} name`);
  const domain = name.split('/')[0] as Domain;
  if (!DOMAINS.includes(domain)) throw new ConfigError(`${where}: unknown domain in "${name}".`);
  const tools = field(entry, 'tools', where);
  if (tools.t !== 'list') throw new ConfigError(`${where}: tools must be a list.`);
  let expected = field(entry, 'expected_output', where);
  if (TUPLE_EXPECTED.has(name) && expected.t === 'str') {
    const tuple = literalEval(expected.v);
    if (pyStr(tuple) === expected.v) expected = tuple;
  }
  return {
    name,
    domain,
    instruction: text(field(entry, 'instruction', where), `${where} instruction`),
    expected,
    tools: tools.v.map((t) => ({
      name: text(field(t, 'name', where), `${where} tool name`),
      description: text(field(t, 'description', where), `${where} tool description`),
      signature: text(field(t, 'signature', where), `${where} tool signature`),
    })),
  };
}

/** Tasks whose name matches any of the globs (`*` any run of characters, `?` one); all without globs. */
export function selectTasks(tasks: readonly M3Task[], globs: readonly string[] | undefined): M3Task[] {
  if (!globs || globs.length === 0) return [...tasks];
  const patterns = globs.map(globToRegExp);
  return tasks.filter((task) => patterns.some((re) => re.test(task.name)));
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${body}$`);
}
