// "Always allow" answers saved to the user's config file (docs/config.md, "Saving answers"): the
// file is read as a YAML document, the rule appended to `permissions.allow`, and the document
// written back whole through a temporary file and a rename, so comments and layout survive and a
// reader never sees half a file. A file that does not parse is left alone (CONFIG).

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isSeq, parseDocument, YAMLSeq } from 'yaml';
import { ruleText } from '../approvals/approval-rules.js';
import { ConfigError } from '../errors.js';
import { MAX_CONFIG_FILE_BYTES } from '../limits.js';
import { parseConfigText } from './load-config-file.js';

/** Appends allow rule `rule` to config file `file` (created, mode 0600, when missing); returns `file:line` of the new entry. */
export function saveAllowRule(file: string, rule: { readonly tool: string; readonly pattern?: string }): string {
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
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    let mode = 0o600;
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      // A new file: readable by the user only (it may name commands that run on this computer).
    }
    // 'wx': never through a file or link someone placed at the temporary name.
    const fd = fs.openSync(temp, 'wx', mode);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new ConfigError(`Cannot write config file ${file}: ${(error as Error).message}. Check that ${dir} is a writable directory.`);
  }
}
