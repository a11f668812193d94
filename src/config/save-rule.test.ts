import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

  it('two processes saving at once take turns: no rule is lost, and no lock is left', async () => {
    const file = path.join(dir, 'config.yaml');
    fs.writeFileSync(file, '# shared\n');
    // The built module (the global setup builds dist/), in two real processes at once.
    const built = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/config/save-rule.js');
    const saver = (name: string) =>
      new Promise<number | null>((resolve) => {
        const code = `const { saveAllowRule } = await import(${JSON.stringify(built)}); for (let i = 0; i < 25; i++) saveAllowRule(${JSON.stringify(file)}, { tool: 'bash', pattern: '${name} ' + i });`;
        const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('close', resolve);
      });
    expect(await Promise.all([saver('a'), saver('b')])).toEqual([0, 0]);
    const patterns = readConfigFile(file)!.rules.map((r) => r.pattern);
    expect(patterns).toHaveLength(50);
    expect(new Set(patterns).size).toBe(50);
    expect(fs.readFileSync(file, 'utf8').startsWith('# shared\n')).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['config.yaml']);
  });

  it('a lock left by a crashed process is removed once stale', () => {
    const file = path.join(dir, 'config.yaml');
    const lock = `${file}.lock`;
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    saveAllowRule(file, { tool: 'read' });
    expect(readConfigFile(file)!.rules).toMatchObject([{ tool: 'read' }]);
    expect(fs.existsSync(lock)).toBe(false);
  });
});
