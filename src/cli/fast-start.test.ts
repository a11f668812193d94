import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fastAnswer, helpStamp } from './fast-start.js';

// A built CLI's layout in a temp dir: <root>/package.json, <root>/dist/limits.js, <root>/dist/cli/*.js.
let root: string;
let cliDir: string;
const pipe = { isTTY: false };

function writeHelp(texts: Record<string, string>, stamp = helpStamp(cliDir), width = 80): void {
  fs.writeFileSync(path.join(cliDir, 'help.json'), JSON.stringify({ stamp, width, texts }));
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-fast-start-'));
  cliDir = path.join(root, 'dist', 'cli');
  fs.mkdirSync(path.join(cliDir, 'commands'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ version: '9.8.7' }));
  fs.writeFileSync(path.join(root, 'dist', 'limits.js'), 'export {};\n');
  fs.writeFileSync(path.join(cliDir, 'main.js'), 'export {};\n');
  fs.writeFileSync(path.join(cliDir, 'commands', 'exec.js'), 'export {};\n');
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('fastAnswer', () => {
  it('--version and -V print the package version', () => {
    expect(fastAnswer(['--version'], pipe, cliDir)).toBe('9.8.7\n');
    expect(fastAnswer(['-V'], pipe, cliDir)).toBe('9.8.7\n');
    expect(fastAnswer(['exec', '--version'], pipe, cliDir)).toBeUndefined();
  });

  it('answers --help, -h and `help <command>` from a help file of this build', () => {
    writeHelp({ '': 'root help\n', exec: 'exec help\n', 'sessions list': 'list help\n' });
    expect(fastAnswer(['--help'], pipe, cliDir)).toBe('root help\n');
    expect(fastAnswer(['-h'], pipe, cliDir)).toBe('root help\n');
    expect(fastAnswer(['exec', '--help'], pipe, cliDir)).toBe('exec help\n');
    expect(fastAnswer(['help', 'exec'], pipe, cliDir)).toBe('exec help\n');
    expect(fastAnswer(['sessions', 'list', '-h'], pipe, cliDir)).toBe('list help\n');
  });

  it('leaves to commander what the file does not know: other arguments, unknown commands, other widths', () => {
    writeHelp({ '': 'root help\n', exec: 'exec help\n' });
    expect(fastAnswer(['exec', 'a.ts', '--help'], pipe, cliDir)).toBeUndefined();
    expect(fastAnswer(['exec', '--json', '--help'], pipe, cliDir)).toBeUndefined();
    expect(fastAnswer(['nosuch', '--help'], pipe, cliDir)).toBeUndefined();
    expect(fastAnswer(['exec'], pipe, cliDir)).toBeUndefined();
    expect(fastAnswer([], pipe, cliDir)).toBeUndefined();
    // commander wraps to a terminal's width: only an 80-column terminal gets the 80-column text.
    expect(fastAnswer(['--help'], { isTTY: true, columns: 120 }, cliDir)).toBeUndefined();
    expect(fastAnswer(['--help'], { isTTY: true, columns: 80 }, cliDir)).toBe('root help\n');
  });

  it('ignores a help file of another build: a module of another size, added, or written well after it', () => {
    writeHelp({ '': 'root help\n' });
    expect(fastAnswer(['--help'], pipe, cliDir)).toBe('root help\n');
    fs.writeFileSync(path.join(cliDir, 'commands', 'exec.js'), 'export const changed = 1;\n');
    expect(fastAnswer(['--help'], pipe, cliDir)).toBeUndefined();
    writeHelp({ '': 'root help\n' });
    fs.writeFileSync(path.join(cliDir, 'commands', 'new.js'), 'export {};\n');
    expect(fastAnswer(['--help'], pipe, cliDir)).toBeUndefined();
    // The same size, written an hour after the help file (tsc alone, without the help step).
    writeHelp({ '': 'root help\n' });
    fs.writeFileSync(path.join(cliDir, 'main.js'), 'export {}; \n'.slice(0, 11));
    const later = new Date(Date.now() + 3_600_000);
    fs.utimesSync(path.join(cliDir, 'main.js'), later, later);
    expect(fastAnswer(['--help'], pipe, cliDir)).toBeUndefined();
  });

  it('answers in an installed copy, whose files all carry the moments of the install in any order', () => {
    writeHelp({ '': 'root help\n' });
    // The help file extracted first, the modules a second later.
    const soon = new Date(Date.now() + 1_000);
    for (const file of ['main.js', 'commands/exec.js']) fs.utimesSync(path.join(cliDir, file), soon, soon);
    expect(fastAnswer(['--help'], pipe, cliDir)).toBe('root help\n');
  });

  it('ignores a missing, corrupt or malformed help file', () => {
    expect(fastAnswer(['--help'], pipe, cliDir)).toBeUndefined();
    fs.writeFileSync(path.join(cliDir, 'help.json'), '{"stamp": "x", "wid');
    expect(fastAnswer(['--help'], pipe, cliDir)).toBeUndefined();
    fs.writeFileSync(path.join(cliDir, 'help.json'), JSON.stringify({ stamp: helpStamp(cliDir), width: 80, texts: null }));
    expect(fastAnswer(['--help'], pipe, cliDir)).toBeUndefined();
  });
});
