// `ptc tools` and `ptc sdk` print a remembered output when nothing it came from changed
// (src/cli/output-cache.ts): a change to a preset, a config file, the environment or the
// workspace's trust is a miss that recomputes, and a broken cache file is ignored. A hit is shown
// by editing the remembered text: only the cache can print it.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PTC_BIN } from '../helpers/run-ptc.js';

let base: string;
let home: string;
let ptcHome: string;
let n = 0;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-output-cache-'));
  home = path.join(base, 'home');
  ptcHome = path.join(base, 'ptc-home');
  fs.mkdirSync(home);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function freshWorkspace(): string {
  const dir = path.join(base, `ws-${++n}`);
  fs.mkdirSync(dir);
  return dir;
}

function ptc(args: readonly string[], cwd: string, extraEnv: Record<string, string> = {}) {
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, PTC_HOME: ptcHome, ...extraEnv };
  const run = spawnSync(process.execPath, [PTC_BIN, ...args], { cwd, env, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The same command with the cache turned off: what it computes now. */
function computed(args: readonly string[], cwd: string, extraEnv: Record<string, string> = {}) {
  return ptc(args, cwd, { ...extraEnv, PTC_NO_OUTPUT_CACHE: '1' });
}

const cacheDir = () => path.join(ptcHome, 'cache', 'output');
const entries = () => (fs.existsSync(cacheDir()) ? fs.readdirSync(cacheDir()).filter((f) => f.endsWith('.json')) : []);

/** Replaces the remembered text of every entry: a run that prints it was answered by the cache. */
function poisonEntries(text: string): void {
  for (const file of entries()) {
    const full = path.join(cacheDir(), file);
    const entry = JSON.parse(fs.readFileSync(full, 'utf8')) as { stdout: string };
    fs.writeFileSync(full, JSON.stringify({ ...entry, stdout: text }));
  }
}

function writePreset(dir: string, name: string, tools: readonly string[]): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, `${name}.yml`),
    `description: ${name} for the cache test\nplugins:\n  - name: builtin-tools\n    config: { tools: [${tools.join(', ')}] }\n  - name: node-runtime\n  - name: tool-presentation\n    config: { mode: ptc }\n`,
  );
}

function toolNames(stdout: string): string[] {
  return [...stdout.matchAll(/^(\w+) {2}\(/gm)].map((m) => m[1]!).sort();
}

describe('the output cache of ptc tools and ptc sdk', () => {
  it('answers a repeated command from the cache, and recomputes when a preset, the config or the environment changes', () => {
    const ws = freshWorkspace();
    const first = ptc(['tools'], ws);
    expect(first.code).toBe(0);
    expect(toolNames(first.stdout)).toContain('grep');
    expect(entries().length).toBeGreaterThan(0);
    poisonEntries('remembered\n');
    expect(ptc(['tools'], ws)).toMatchObject({ code: 0, stdout: 'remembered\n' });

    // A user preset shadowing the shipped one: a file that did not exist when the entry was made.
    writePreset(path.join(ptcHome, 'presets'), 'ptc', ['read']);
    const shadowed = ptc(['tools'], ws);
    expect(shadowed.code).toBe(0);
    expect(toolNames(shadowed.stdout)).toEqual(['read']);
    expect(shadowed.stdout).toBe(computed(['tools'], ws).stdout);

    // Its content edited.
    poisonEntries('remembered\n');
    writePreset(path.join(ptcHome, 'presets'), 'ptc', ['read', 'glob']);
    expect(toolNames(ptc(['tools'], ws).stdout)).toEqual(['glob', 'read']);

    // The user config names another preset.
    writePreset(path.join(ptcHome, 'presets'), 'other', ['write']);
    poisonEntries('remembered\n');
    fs.mkdirSync(path.join(home, '.config', 'ptc'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config', 'ptc', 'config.yaml'), 'preset: other\n');
    const configured = ptc(['tools'], ws);
    expect(toolNames(configured.stdout)).toEqual(['write']);
    expect(configured.stdout).toBe(computed(['tools'], ws).stdout);
    fs.rmSync(path.join(home, '.config', 'ptc', 'config.yaml'));

    // A variable the command reads.
    poisonEntries('remembered\n');
    const fromEnv = ptc(['tools'], ws, { PTC_PRESET: 'other' });
    expect(toolNames(fromEnv.stdout)).toEqual(['write']);
    expect(toolNames(ptc(['tools'], ws).stdout)).toEqual(['glob', 'read']);
    fs.rmSync(path.join(ptcHome, 'presets'), { recursive: true });
  });

  it("follows the workspace's trust: granted, the workspace preset is remembered; revoked or changed, it is not", () => {
    const ws = freshWorkspace();
    writePreset(path.join(ws, '.ptc', 'presets'), 'mine', ['read', 'edit']);
    const before = entries().length;
    const untrusted = ptc(['tools', '--preset', 'mine'], ws);
    // Refused (or noted) on stderr: nothing of it is remembered.
    expect(untrusted.stderr).not.toBe('');
    expect(entries().length).toBe(before);

    expect(ptc(['trust', ws], ws).code).toBe(0);
    const trusted = ptc(['tools', '--preset', 'mine'], ws);
    expect(trusted.code).toBe(0);
    expect(toolNames(trusted.stdout)).toEqual(['edit', 'read']);
    poisonEntries('remembered\n');
    expect(ptc(['tools', '--preset', 'mine'], ws).stdout).toBe('remembered\n');

    // Changed since trusted: the workspace preset is no longer loaded.
    writePreset(path.join(ws, '.ptc', 'presets'), 'mine', ['read', 'edit', 'bash']);
    const changed = ptc(['tools', '--preset', 'mine'], ws);
    expect(changed.stdout).not.toBe('remembered\n');
    expect(changed).toEqual(computed(['tools', '--preset', 'mine'], ws));

    // Trusted again, then revoked.
    expect(ptc(['trust', ws], ws).code).toBe(0);
    expect(toolNames(ptc(['tools', '--preset', 'mine'], ws).stdout)).toEqual(['bash', 'edit', 'read']);
    poisonEntries('remembered\n');
    expect(ptc(['trust', '--revoke', ws], ws).code).toBe(0);
    const revoked = ptc(['tools', '--preset', 'mine'], ws);
    expect(revoked.stdout).not.toBe('remembered\n');
    expect(revoked).toEqual(computed(['tools', '--preset', 'mine'], ws));
  });

  it('ptc sdk: remembered per command line (--lang py is its own entry)', () => {
    const ws = freshWorkspace();
    const ts = ptc(['sdk'], ws);
    const py = ptc(['sdk', '--lang', 'py'], ws);
    expect(ts.code).toBe(0);
    expect(py.code).toBe(0);
    expect(py.stdout).not.toBe(ts.stdout);
    poisonEntries('remembered\n');
    expect(ptc(['sdk'], ws).stdout).toBe('remembered\n');
    expect(ptc(['sdk', '--lang', 'py'], ws).stdout).toBe('remembered\n');
    // A new skill in the user's skills folder enters the SDK's prompt: a miss.
    const skill = path.join(home, '.config', 'ptc', 'skills', 'cache-test');
    fs.mkdirSync(skill, { recursive: true });
    fs.writeFileSync(path.join(skill, 'SKILL.md'), '---\nname: cache-test\ndescription: a skill made by the cache test\n---\nBody.\n');
    const withSkill = ptc(['sdk'], ws);
    expect(withSkill.stdout).not.toBe('remembered\n');
    expect(withSkill).toEqual(computed(['sdk'], ws));
    fs.rmSync(skill, { recursive: true });
  });

  it('ignores a corrupt, truncated or foreign cache file and replaces it', () => {
    const ws = freshWorkspace();
    const expected = computed(['tools', '--json'], ws);
    expect(expected.code).toBe(0);
    const before = new Set(entries());
    expect(ptc(['tools', '--json'], ws)).toEqual(expected);
    const made = entries().filter((file) => !before.has(file));
    expect(made.length).toBe(1);
    for (const bad of ['not json at all', '{"format":1,"key":', JSON.stringify({ format: 1, key: 'x', env: {}, files: {}, stdout: 'foreign\n' }), JSON.stringify([1, 2])]) {
      for (const file of made) fs.writeFileSync(path.join(cacheDir(), file), bad);
      expect(ptc(['tools', '--json'], ws)).toEqual(expected);
    }
    // Rewritten whole: the next run is a hit of the right text.
    for (const file of made) expect(JSON.parse(fs.readFileSync(path.join(cacheDir(), file), 'utf8'))).toMatchObject({ stdout: expected.stdout });
  });

  it('keeps the newest 200 entries: a miss that writes one removes the oldest past that', () => {
    const ws = freshWorkspace();
    fs.mkdirSync(cacheDir(), { recursive: true });
    const old = new Date(Date.now() - 86_400_000);
    for (let i = 0; i < 205; i++) {
      const file = path.join(cacheDir(), `old-${i}.json`);
      fs.writeFileSync(file, '{}');
      fs.utimesSync(file, old, old);
    }
    const before = new Set(entries());
    expect(ptc(['tools'], ws).code).toBe(0);
    const after = entries();
    expect(after.length).toBe(200);
    // The new entry is among them, and it answers the next run.
    expect(after.filter((file) => !before.has(file))).toHaveLength(1);
    poisonEntries('remembered\n');
    expect(ptc(['tools'], ws).stdout).toBe('remembered\n');
    for (const file of entries()) if (file.startsWith('old-')) fs.rmSync(path.join(cacheDir(), file));
  });

  it('does not remember a command with --plugin or --mcp-config, or one that failed', () => {
    const ws = freshWorkspace();
    const before = entries().length;
    fs.writeFileSync(path.join(ws, 'plugin.mjs'), "export const name = 'p';\nexport function apply() {}\n");
    expect(ptc(['tools', '--plugin', './plugin.mjs'], ws).code).toBe(0);
    expect(ptc(['tools', '--preset', 'no-such-preset'], ws).code).toBe(2);
    expect(entries().length).toBe(before);
  });
});
