// `ptc exec` starts its sandboxed child on the guess of the last run with the same command line
// (src/cli/exec-speculation.ts) and runs the program on it only when the harness, built as always,
// asks for exactly that child (src/cli/exec-speculation-check.ts). Hostile cases: a guess forged
// wider than the final policy, a config file and a preset that narrow the policy between runs; each
// must run under the final policy. A guess that matched is not written again, which shows it was used.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutBwrap } from '../helpers/bwrap.js';
import { PTC_BIN } from '../helpers/run-ptc.js';

let base: string;
let n = 0;

beforeAll(() => void (base = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-exec-speculation-'))));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** A workspace with its own HOME and PTC_HOME, so each test starts with no guess. */
function setup() {
  const root = path.join(base, `case-${++n}`);
  const ws = path.join(root, 'ws');
  const home = path.join(root, 'home');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home);
  const ptcHome = path.join(root, 'ptc-home');
  const guessDir = path.join(ptcHome, 'cache', 'exec');
  const guesses = () => (fs.existsSync(guessDir) ? fs.readdirSync(guessDir).filter((f) => f.endsWith('.json')).map((f) => path.join(guessDir, f)) : []);
  const ptc = (args: readonly string[], extraEnv: Record<string, string> = {}) => {
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, PTC_HOME: ptcHome, ...extraEnv };
    const run = spawnSync(process.execPath, [PTC_BIN, ...args], { cwd: ws, env, encoding: 'utf8' });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  return { root, ws, home, ptcHome, guesses, ptc };
}

describe('ptc exec on a child started ahead', () => {
  it('runs a repeated command on the guessed child, with the same output as without a guess', () => {
    const { ws, guesses, ptc } = setup();
    fs.writeFileSync(path.join(ws, 'p.ts'), 'const n: number = 41;\nconsole.log("log line");\nreturn { n: n + 1 };\n');
    const first = ptc(['exec', 'p.ts']);
    expect(first).toMatchObject({ code: 0, stdout: '{\n  "n": 42\n}\n' });
    expect(guesses()).toHaveLength(1);
    const file = guesses()[0]!;
    // A guess that matches is not written again: a trailing space the CLI would not write stays.
    fs.appendFileSync(file, ' ');
    const second = ptc(['exec', 'p.ts']);
    expect(second).toEqual(first);
    expect(fs.readFileSync(file, 'utf8').endsWith(' ')).toBe(true);
    expect(ptc(['exec', 'p.ts', '--json']).stdout).toBe(ptc(['exec', 'p.ts', '--json'], { PTC_NO_OUTPUT_CACHE: '1' }).stdout);
  });

  it('treats a corrupt guess as none, and remembers nothing with PTC_NO_OUTPUT_CACHE=1', () => {
    const { ws, guesses, ptc } = setup();
    fs.writeFileSync(path.join(ws, 'p.ts'), 'return 1;\n');
    expect(ptc(['exec', 'p.ts'], { PTC_NO_OUTPUT_CACHE: '1' })).toMatchObject({ code: 0, stdout: '1\n' });
    expect(guesses()).toHaveLength(0);
    expect(ptc(['exec', 'p.ts'])).toMatchObject({ code: 0, stdout: '1\n' });
    const file = guesses()[0]!;
    fs.writeFileSync(file, '{"format":1,"key":');
    expect(ptc(['exec', 'p.ts'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ format: 1, request: { cwd: fs.realpathSync(ws) } });
  });

  it.skipIf(skipWithoutBwrap)('never runs a program on a child whose guessed policy is wider than the final one (a forged guess)', () => {
    const { root, ws, guesses, ptc } = setup();
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    const target = path.join(outside, 'planted.txt');
    fs.writeFileSync(path.join(ws, 'p.ts'), `require('node:fs').writeFileSync(${JSON.stringify(target)}, 'x');\nreturn 'wrote';\n`);
    const first = ptc(['exec', 'p.ts']);
    expect(first.code).toBe(1);
    expect(fs.existsSync(target)).toBe(false);
    // The guess rewritten as an attacker (or a stale run) would have it: the outside folder writable, network on.
    const file = guesses()[0]!;
    const guess = JSON.parse(fs.readFileSync(file, 'utf8')) as { request: { policy: Record<string, unknown> } };
    guess.request.policy = { ...guess.request.policy, allowWrite: [outside], network: true };
    fs.writeFileSync(file, JSON.stringify(guess));
    const second = ptc(['exec', 'p.ts']);
    expect(second.code).toBe(1);
    expect(fs.existsSync(target)).toBe(false);
    // The wrong guess was replaced by the policy the run had.
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ request: { policy: { allowWrite: [], network: false } } });
  });

  it.skipIf(skipWithoutBwrap)('honours a config file that protects a path after the guess was made', () => {
    const { ws, home, ptc } = setup();
    const secret = path.join(ws, 'secret.txt');
    fs.writeFileSync(secret, 'original');
    fs.writeFileSync(path.join(ws, 'p.ts'), `require('node:fs').writeFileSync('secret.txt', 'changed');\nreturn 'wrote';\n`);
    expect(ptc(['exec', 'p.ts'])).toMatchObject({ code: 0, stdout: 'wrote\n' });
    fs.writeFileSync(secret, 'original');
    fs.mkdirSync(path.join(home, '.config', 'ptc'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config', 'ptc', 'config.yaml'), 'protect: [secret.txt]\n');
    const narrowed = ptc(['exec', 'p.ts']);
    expect(narrowed.code).toBe(1);
    expect(fs.readFileSync(secret, 'utf8')).toBe('original');
  });

  it.skipIf(skipWithoutBwrap)('honours a preset that stops child processes after the guess was made', () => {
    const { ws, ptcHome, ptc } = setup();
    const presets = path.join(ptcHome, 'presets');
    fs.mkdirSync(presets, { recursive: true });
    const writePreset = (processes: boolean) =>
      fs.writeFileSync(
        path.join(presets, 'narrow.yml'),
        `description: node-runtime with processes ${processes}\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: node-runtime\n    config: { processes: ${processes} }\n  - name: tool-presentation\n    config: { mode: ptc }\n`,
      );
    writePreset(true);
    fs.writeFileSync(path.join(ws, 'p.ts'), `require('node:child_process').execFileSync('/bin/true');\nreturn 'spawned';\n`);
    expect(ptc(['exec', 'p.ts', '--preset', 'narrow'])).toMatchObject({ code: 0, stdout: 'spawned\n' });
    writePreset(false);
    const narrowed = ptc(['exec', 'p.ts', '--preset', 'narrow']);
    expect(narrowed.code).toBe(1);
    expect(narrowed.stdout).not.toContain('spawned');
  });
});
