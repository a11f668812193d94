import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createContext } from '../context/context.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { assemblePrompt, renderSystemPrompt } from './prompt.js';
import { loadWorkspaceInstructions, renderWorkspaceSection } from './workspace-instructions.js';

let dir: string;
let ws: string;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-instructions-')));
  ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string | Buffer) => fs.writeFileSync(path.join(ws, name), text);

describe('workspace instructions', () => {
  it('prefers AGENTS.md over CLAUDE.md and renders it under the workspace line', () => {
    write('AGENTS.md', '# House rules\n\nRun `npm test` before you finish.\n');
    write('CLAUDE.md', 'Claude-only rules.\n');
    const loaded = loadWorkspaceInstructions(ws);
    expect(loaded).toMatchObject({ file: 'AGENTS.md', truncated: false, bytes: 49 });
    const section = renderWorkspaceSection(ws, loaded);
    expect(section.startsWith(`## Workspace\n\nThe workspace is ${ws} on ${process.platform}.`)).toBe(true);
    expect(section).toContain('### Instructions from AGENTS.md');
    expect(section).toContain('Run `npm test` before you finish.');
    expect(section).not.toContain('Claude-only');
  });

  it('uses CLAUDE.md when there is no AGENTS.md (or AGENTS.md is not a file)', () => {
    write('CLAUDE.md', 'Claude rules.\n');
    expect(loadWorkspaceInstructions(ws)).toMatchObject({ file: 'CLAUDE.md', text: 'Claude rules.\n' });
    fs.mkdirSync(path.join(ws, 'AGENTS.md'));
    expect(loadWorkspaceInstructions(ws)?.file).toBe('CLAUDE.md');
  });

  it('without either file the section is the workspace line alone', () => {
    expect(loadWorkspaceInstructions(ws)).toBeUndefined();
    expect(renderWorkspaceSection(ws, undefined)).toBe(`## Workspace\n\nThe workspace is ${ws} on ${process.platform}. Relative paths are resolved against it.`);
    expect(loadWorkspaceInstructions(path.join(dir, 'no-such-dir'))).toBeUndefined();
  });

  it('cuts a long file at the cap on a character boundary, with a note', () => {
    write('AGENTS.md', `${'é'.repeat(60)}TAIL`);
    const loaded = loadWorkspaceInstructions(ws, 101)!;
    expect(loaded).toMatchObject({ truncated: true, bytes: 124, text: 'é'.repeat(50) });
    expect(renderWorkspaceSection(ws, loaded)).toContain('[AGENTS.md was cut at 101 of its 124 bytes; read the file for the rest.]');
  });

  it('does not follow a symlink leading outside the workspace, nor read binary files', () => {
    fs.writeFileSync(path.join(dir, 'secret.md'), 'outside secret\n');
    fs.symlinkSync(path.join(dir, 'secret.md'), path.join(ws, 'AGENTS.md'));
    write('CLAUDE.md', Buffer.from([0x61, 0, 0x62]));
    expect(loadWorkspaceInstructions(ws)).toBeUndefined();
    // A symlink that stays inside the workspace is fine.
    fs.rmSync(path.join(ws, 'AGENTS.md'));
    fs.rmSync(path.join(ws, 'CLAUDE.md'));
    write('RULES.md', 'shared rules\n');
    fs.symlinkSync('RULES.md', path.join(ws, 'CLAUDE.md'));
    expect(loadWorkspaceInstructions(ws)).toMatchObject({ file: 'CLAUDE.md', text: 'shared rules\n' });
  });

  it('assemblePrompt reads them from cwd unless the session passes what it loaded', async () => {
    write('AGENTS.md', 'Always answer in haiku.\n');
    const root = createContext();
    root.provide('tools', new ToolRuntime(root, { mode: 'native' }));
    const fresh = renderSystemPrompt(await assemblePrompt({ scope: root, step: 1, cwd: ws }));
    expect(fresh).toContain('Always answer in haiku.');
    const none = renderSystemPrompt(await assemblePrompt({ scope: root, step: 1, cwd: ws, instructions: false }));
    expect(none).not.toContain('haiku');
  });
});
