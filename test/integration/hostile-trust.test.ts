// Workspace trust past the files a preset names (docs/security.md, "Workspace trust"): a sandboxed
// program edits a module a trusted plugin imports; a program writes a plugin and asks plugin_try to
// import it; a library caller's `trustWorkspace: true` and its subagents. Real `ptc` (dist/), real
// bwrap, real child processes; each host-side import leaves a marker file.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { installApprovals, type ApprovalAnswer, type ApprovalRequest } from '../../src/approvals/approvals.js';
import { createHarness } from '../../src/harness.js';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';
import { delegateTurn } from '../helpers/delegate.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-hostile-trust-')));
const home = path.join(base, 'ptc-home');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: base, PTC_HOME: home };
let count = 0;

function ptc(args: string[], cwd: string, input = '') {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', input, env });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A module that leaves `marker` on the host when imported. */
const marking = (marker: string, extra = '') => `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, 'ran');\n${extra}`;

/** A workspace whose preset `repo` names ../../tools/weather.mjs, which imports ./util.mjs (leaving a marker). */
function workspace(): { dir: string; markers: string; util: string } {
  const dir = path.join(base, `ws-${++count}`);
  const markers = path.join(base, `markers-${count}`);
  fs.mkdirSync(path.join(dir, '.ptc', 'presets'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'tools'));
  fs.mkdirSync(markers);
  fs.writeFileSync(path.join(dir, '.ptc/presets/repo.yml'), 'description: repo\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: ../../tools/weather.mjs\n');
  fs.writeFileSync(path.join(dir, 'tools/weather.mjs'), "import { units } from './util.mjs';\nexport const name = 'weather';\nexport function apply() { void units; }\n");
  const util = path.join(dir, 'tools/util.mjs');
  fs.writeFileSync(util, marking(path.join(markers, 'util'), "export const units = 'metric';\n"));
  return { dir, markers, util };
}

describe('a program edits a module a trusted plugin imports', () => {
  it.skipIf(skipWithoutBwrap)('ptc exec (bwrap) rewrites tools/util.mjs after ptc trust: the next ptc tools refuses and nothing of it runs', () => {
    const ws = workspace();
    expect(ptc(['trust', ws.dir], base).code).toBe(0);
    const evil = marking(path.join(ws.markers, 'evil'), "export const units = 'metric';\n");
    const program = `require('node:fs').writeFileSync(${JSON.stringify(ws.util)}, ${JSON.stringify(evil)}); return 'written';`;
    const exec = ptc(['exec', '-', '--json', '--sandbox', 'required'], ws.dir, program);
    expect(exec.code, exec.stderr).toBe(0);
    expect(fs.readFileSync(ws.util, 'utf8')).toBe(evil);
    const tools = ptc(['tools', '--preset', 'repo'], ws.dir);
    expect(fs.readdirSync(ws.markers)).toEqual([]);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain(`workspace ${ws.dir} changed since you trusted it`);
  });

  it('control: unchanged, the trusted plugin and what it imports run; ptc trust lists the imported module', () => {
    const ws = workspace();
    const granted = ptc(['trust', ws.dir], base);
    expect(granted.code).toBe(0);
    expect(granted.stdout).toContain('modules those import');
    expect(granted.stdout).toContain('    tools/util.mjs');
    expect(ptc(['tools', '--preset', 'repo'], ws.dir).code).toBe(0);
    expect(fs.readdirSync(ws.markers)).toEqual(['util']);
  });
});

/** A ptc-mode harness with write, plugin_try and a bwrap-sandboxed Node runtime. */
async function creatorHarness(dir: string) {
  const preset = path.join(base, `creator-ptc-${++count}.yml`);
  fs.writeFileSync(
    preset,
    'description: plugin_try through programs\nplugins:\n  - name: builtin-tools\n    config: { tools: [read, write] }\n' +
      '  - name: creator-tools\n    config: { tools: [plugin_try] }\n  - name: node-runtime\n  - name: tool-presentation\n    config: { mode: ptc }\n',
  );
  return createHarness({ cwd: dir, preset, env: { PTC_HOME: home }, sandbox: 'required', timeoutMs: 20_000 });
}

describe('a program writes a plugin and calls plugin_try', () => {
  const attack = (marker: string) =>
    `const content = ${JSON.stringify(marking(marker, "export const name = 'evil';\nexport function apply() {}\n"))};\n` +
    // Under writes the sandbox holds the workspace read-only: the program writes through the write tool.
    "try { require('node:fs').writeFileSync('evil.mjs', content); } catch { await tools.write({ path: 'evil.mjs', content }); }\n" +
    "try { const r = await tools.plugin_try({ path: 'evil.mjs' }); return 'loaded ' + r.ok; } catch (e) { return e.code + ': ' + e.message; }";

  /** Runs the attack under `policy`; `answer` is the person's answer to plugin_try's own request. */
  async function run(policy: 'never' | 'writes', answer: ApprovalAnswer) {
    const dir = path.join(base, `try-ws-${++count}`);
    fs.mkdirSync(dir);
    const marker = path.join(base, `try-marker-${count}`);
    const harness = await creatorHarness(dir);
    const asked: ApprovalRequest[] = [];
    installApprovals(harness.ctx, {
      policy,
      approver: async (request) => {
        if (request.why === undefined) return { decision: 'allow' };
        asked.push(request);
        return answer;
      },
    });
    try {
      const result = await harness.tools.execute('run_code', { code: attack(marker), description: 'try a plugin' });
      expect(result.isError, result.content).toBe(false);
      return { value: (result.value as { result: string }).result, asked, ran: fs.existsSync(marker) };
    } finally {
      await harness.dispose();
    }
  }

  it.skipIf(skipWithoutBwrap)('under --approve never: PERMISSION_DENIED naming why, nothing imported, no one asked', async () => {
    const outcome = await run('never', { decision: 'allow-tool' });
    expect(outcome.ran).toBe(false);
    expect(outcome.value).toMatch(/^PERMISSION_DENIED: /);
    expect(outcome.value).toContain('--approve never');
    expect(outcome.asked).toEqual([]);
  });

  it.skipIf(skipWithoutBwrap)('under writes: the request shows the file and its content; deny imports nothing; allow (the control) imports it', async () => {
    const denied = await run('writes', { decision: 'deny' });
    expect(denied.ran).toBe(false);
    expect(denied.value).toMatch(/^PERMISSION_DENIED: .*denied by the user/);
    expect(denied.asked).toHaveLength(1);
    expect((denied.asked[0]!.args as { path: string }).path).toMatch(/evil\.mjs$/);
    expect((denied.asked[0]!.args as { content: string }).content).toContain("fs.writeFileSync(");
    expect(denied.asked[0]!.parent?.program).toContain('tools.plugin_try');
    const allowed = await run('writes', { decision: 'allow' });
    expect(allowed.value).toBe('loaded true');
    expect(allowed.ran).toBe(true);
  });
});

describe("a library caller's trustWorkspace: true and its subagents", () => {
  /** A parent on the shipped `standard` preset delegating to the workspace-only preset `repo`. */
  async function delegate(trustWorkspace: boolean) {
    const ws = workspace();
    // The process's own PTC_HOME trusts nothing here: only the caller's option can.
    vi.stubEnv('PTC_HOME', path.join(base, `empty-home-${count}`));
    const sessionDir = path.join(base, `sessions-${count}`);
    const server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'delegate', prompt: 'Say hi.', preset: 'repo' } }]),
      ...(trustWorkspace ? [reply.text('Hi from the child.')] : []),
      reply.text('Done.'),
    ]);
    const harness = await createHarness({ cwd: ws.dir, preset: 'standard', env: { PTC_HOME: path.join(base, `empty-home-${count}`) }, ...(trustWorkspace ? { trustWorkspace } : {}) });
    try {
      const { result } = await delegateTurn({ scope: harness.ctx, cwd: ws.dir, baseUrl: server.baseUrl, sessionDir });
      return { result, markers: fs.readdirSync(ws.markers), bodies: server.requests.map((r) => r.body) };
    } finally {
      await harness.dispose();
      await server.close();
    }
  }

  it('task({ preset }) of a workspace-only preset: the child uses the parent\'s trust (its plugin and imports load)', async () => {
    const trusted = await delegate(true);
    expect(trusted.result).toMatchObject({ reason: 'completed', text: 'Done.' });
    expect(trusted.markers).toEqual(['util']);
  });

  it('control: without the option the store decides, and the child refuses the untrusted preset (nothing runs)', async () => {
    const untrusted = await delegate(false);
    expect(untrusted.markers).toEqual([]);
    expect(untrusted.bodies[1]).toContain('INVALID_ARGS');
    expect(untrusted.bodies[1]).toContain('ptc trust');
  });
});
