// "Always allow" answers saved to the user's config file (docs/config.md, "Saving answers"): the
// file is read as a YAML document, the rule appended to `permissions.allow`, and the document
// written back whole through a temporary file and a rename, so comments and layout survive and a
// reader never sees half a file. A file that does not parse is left alone (CONFIG). Two processes
// saving at once (a chat and an editor) take turns through a lock file beside it, so neither
// rule is lost.

import fs from 'node:fs';
import path from 'node:path';
import { isSeq, parseDocument, YAMLSeq } from 'yaml';
import { ruleText } from '../approvals/approval-rules.js';
import { ConfigError } from '../errors.js';
import { CONFIG_SAVE_LOCK_STALE_MS, CONFIG_SAVE_LOCK_WAIT_MS, MAX_CONFIG_FILE_BYTES } from './limits.js';
import { replaceFile } from '../replace-file.js';
import { parseConfigText } from './load-config-file.js';

/** Appends allow rule `rule` to config file `file` (created, mode 0600, when missing); returns `file:line` of the new entry. */
export function saveAllowRule(file: string, rule: { readonly tool: string; readonly pattern?: string }): string {
  return withLock(file, () => appendRule(file, rule));
}

function appendRule(file: string, rule: { readonly tool: string; readonly pattern?: string }): string {
  const text = readExisting(file);
  // The file as it is must load: saving into a broken file would hide its problem.
  if (text !== '') parseConfigText(text, file);
  const doc = parseDocument(text);
  const entry = ruleText(rule);
  let allow = doc.getIn(['permissions', 'allow'], true);
  if (!isSeq(allow)) {
    allow = new YAMLSeq();
    doc.setIn(['permissions', 'allow'], allow);
  }
  (allow as YAMLSeq).add(doc.createNode(entry));
  const written = doc.toString();
  // Checks what is written; its last allow rule is the new entry, with its line.
  const saved = parseConfigText(written, file);
  writeAtomically(file, written);
  return saved.rules.filter((r) => r.effect === 'allow').at(-1)?.origin ?? file;
}

/** Runs `fn` holding `<file>.lock` (created exclusively); waits for another holder, removes a stale one. */
function withLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + CONFIG_SAVE_LOCK_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`Cannot create the directory of config file ${file}: ${(error as Error).message}; the rule was not saved.`);
  }
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`Cannot lock config file ${file}: ${(error as Error).message}; the rule was not saved.`);
    }
    const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > CONFIG_SAVE_LOCK_STALE_MS) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new ConfigError(`Config file ${file} is being saved by another process (${lock} exists); the rule was not saved. Remove ${lock} if no ptc is running.`);
    }
    Atomics.wait(pause, 0, 0, 5);
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

function readExisting(file: string): string {
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_CONFIG_FILE_BYTES) throw new ConfigError(`Config file ${file} is ${size} bytes, more than ${MAX_CONFIG_FILE_BYTES}; the rule was not saved. Shorten the file.`);
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new ConfigError(`Cannot read config file ${file}: ${(error as Error).message}; the rule was not saved.`);
  }
}

function writeAtomically(file: string, text: string): void {
  let mode = 0o600;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    // A new file: readable by the user only (it may name commands that run on this computer).
  }
  try {
    replaceFile(file, text, mode);
  } catch (error) {
    throw new ConfigError(`Cannot write config file ${file}: ${(error as Error).message}. Check that ${path.dirname(file)} is a writable directory.`);
  }
}
