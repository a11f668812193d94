import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { readConfigFile } from './load-config-file.js';
import { saveAllowRule } from './save-rule.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-save-rule-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('saving an always-allow rule', () => {
  it('appends to permissions.allow keeping comments and the other keys, and returns the new line', () => {
    const file = path.join(dir, 'config.yaml');
    const before = '# my settings\nmodel: deepseek-chat # the cheap one\npermissions:\n  # reviewed\n  allow:\n    - read\n  deny: ["bash: rm *"]\n';
    fs.writeFileSync(file, before);
    const origin = saveAllowRule(file, { tool: 'bash', pattern: 'npm test' });
    const after = fs.readFileSync(file, 'utf8');
    expect(after).toContain('# my settings');
    expect(after).toContain('# the cheap one');
    expect(after).toContain('# reviewed');
    const loaded = readConfigFile(file)!;
    expect(loaded.values.model).toBe('deepseek-chat');
    expect(loaded.rules.map((r) => `${r.effect} ${r.tool}${r.pattern ? `: ${r.pattern}` : ''}`)).toEqual(['allow read', 'allow bash: npm test', 'deny bash: rm *']);
    expect(origin).toBe(loaded.rules[1]!.origin);
    expect(origin).toMatch(/config\.yaml:7$/);
    expect(fs.readdirSync(dir)).toEqual(['config.yaml']);
  });

  it('creates a missing file (and its directory) readable by the user only', () => {
    const file = path.join(dir, 'ptc', 'config.yaml');
    saveAllowRule(file, { tool: 'write', pattern: 'src/a.ts' });
    expect(readConfigFile(file)!.rules).toMatchObject([{ effect: 'allow', tool: 'write', pattern: 'src/a.ts' }]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('leaves a file that does not load alone: CONFIG naming it', () => {
    const file = path.join(dir, 'config.yaml');
    fs.writeFileSync(file, 'modle: x\n');
    let error: unknown;
    try {
      saveAllowRule(file, { tool: 'read' });
    } catch (e) {
      error = e;
    }
    expect((error as HarnessError).code).toBe('CONFIG');
    expect((error as HarnessError).message).toMatch(/config\.yaml:1: unknown key `modle`/);
    expect(fs.readFileSync(file, 'utf8')).toBe('modle: x\n');
  });
});
