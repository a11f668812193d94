// Saved approval rules on a real harness (docs/config.md, "Approval rules"): real tools, runtime and
// files; only the person's answers are scripted. Deny rules block under every policy, with or
// without approvals, for native calls and program sub-calls alike; allow rules spare the ordinary
// ask but never a protected path's; an "always allow" answer is saved to the config file and the
// next harness built from that file does not ask.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalRuleSet } from '../../src/approvals/approval-rule-set.js';
import { installApprovals, type ApprovalAnswer, type ApprovalRequest } from '../../src/approvals/approvals.js';
import { runAgent } from '../../src/agent/loop.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter, listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';
import { readConfigFile } from '../../src/config/load-config-file.js';
import { saveAllowRule } from '../../src/config/save-rule.js';
import { createHarness, type Harness, type HarnessOptions } from '../../src/harness.js';

let root: string;
let workspace: string;
let configFile: string;
const harnesses: Harness[] = [];

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-config-rules-')));
  workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'keep.txt'), 'keep\n');
  configFile = path.join(root, 'config', 'config.yaml');
  fs.mkdirSync(path.dirname(configFile));
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.dispose();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The rules of `text` as the config file `configFile`, saving answers back to it. */
function rulesFrom(text: string): ApprovalRuleSet {
  fs.writeFileSync(configFile, text);
  const loaded = readConfigFile(configFile)!;
  return new ApprovalRuleSet(loaded.rules, (rule) => saveAllowRule(configFile, rule), configFile);
}

async function open(options: HarnessOptions): Promise<Harness> {
  const harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'off', runtimePool: { size: 1, refill: false }, ...options });
  harnesses.push(harness);
  return harness;
}

function person(answers: ApprovalAnswer[]) {
  const asked: ApprovalRequest[] = [];
  const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    asked.push(request);
    return answers.shift() ?? { decision: 'deny', reason: 'no more scripted answers' };
  };
  return { asked, approver };
}

describe('approval rules from a config file', () => {
  it('a deny rule blocks a native call and a program sub-call with no approvals installed, naming the rule and its file:line', async () => {
    const rules = rulesFrom('permissions:\n  deny:\n    - "bash: rm *"\n');
    const standard = await open({ approvalRules: rules });
    const native = await standard.tools.execute('bash', { command: 'rm keep.txt' });
    expect(native).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
    expect(native.content).toContain(`deny rule "bash: rm *" (${configFile}:3)`);
    const harness = await open({ preset: 'ptc', approvalRules: rules });
    const scope = await harness.ptcScope();
    const result = await harness.tools.execute(
      'run_code',
      { code: "const r = await tools.bash({ command: 'cd . && rm -f keep.txt' }).catch((e) => e.code + ': ' + e.message);\nreturn r;", description: 'remove' },
      { scope },
    );
    expect(result.content).toMatch(/PERMISSION_DENIED: .*deny rule "bash: rm \*"/);
    expect(fs.existsSync(path.join(workspace, 'keep.txt'))).toBe(true);
    // Control: a command the rule does not cover runs.
    expect(await standard.tools.execute('bash', { command: 'echo fine' })).toMatchObject({ isError: false });
  });

  it('under writes an allow rule spares the ask of the calls it covers only; deny wins over allow and over a session allowance', async () => {
    const harness = await open({ approvalRules: rulesFrom('permissions:\n  allow: ["write: src/**", bash]\n  deny: ["bash: git push*"]\n') });
    const { asked, approver } = person([{ decision: 'allow' }, { decision: 'allow-tool' }]);
    const remove = installApprovals(harness.ctx, { policy: 'writes', approver });
    try {
      expect(await harness.tools.execute('write', { path: 'src/a.txt', content: 'a' })).toMatchObject({ isError: false });
      expect(asked).toEqual([]);
      // Not covered: asks.
      expect(await harness.tools.execute('write', { path: 'other.txt', content: 'o' }, { id: 'w2' })).toMatchObject({ isError: false });
      expect(asked.map((r) => r.id)).toEqual(['w2']);
      expect(await harness.tools.execute('bash', { command: 'echo ok' })).toMatchObject({ isError: false });
      // `write` allowed for the session (allow-tool) and `bash` allowed by a rule: the deny still wins.
      await harness.tools.execute('write', { path: 'third.txt', content: 't' }, { id: 'w3' });
      const pushed = await harness.tools.execute('bash', { command: 'git push origin main' });
      expect(pushed).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
      expect(pushed.content).toContain('deny rule "bash: git push*"');
      expect(asked.map((r) => r.id)).toEqual(['w2', 'w3']);
    } finally {
      await remove();
    }
  });

  it('an allow rule does not silence the ask of a protected path (docs/security.md)', async () => {
    const harness = await open({ approvalRules: rulesFrom('permissions:\n  allow: [write, "write: .ptc/**"]\n') });
    const { asked, approver } = person([{ decision: 'deny', reason: 'not the config' }]);
    const remove = installApprovals(harness.ctx, { policy: 'writes', approver });
    try {
      const result = await harness.tools.execute('write', { path: '.ptc/config.yaml', content: 'permissions: { allow: [bash] }\n' }, { id: 'p1' });
      expect(result).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
      expect(result.content).toContain('denied by the user: not the config');
      expect(asked).toHaveLength(1);
      expect(asked[0]!.why).toMatch(/protected path/);
      // A protected ask offers no "always": that answer could not hold there.
      expect(asked[0]!.alwaysAllow).toBeUndefined();
    } finally {
      await remove();
    }
    expect(fs.existsSync(path.join(workspace, '.ptc/config.yaml'))).toBe(false);
    // With no approvals at all the protected write is refused too, allow rule or not.
    const bare = await open({ approvalRules: rulesFrom('permissions:\n  allow: [write]\n') });
    expect(await bare.tools.execute('write', { path: '.git/config', content: 'x' })).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
  });

  it('an allow-always answer is saved to the file; a harness built from it later does not ask for that call, and asks for another', async () => {
    fs.writeFileSync(configFile, '# my rules\nmodel: deepseek-chat\n');
    const first = await open({ approvalRules: new ApprovalRuleSet(readConfigFile(configFile)!.rules, (r) => saveAllowRule(configFile, r), configFile) });
    const one = person([{ decision: 'allow-always' }]);
    const remove = installApprovals(first.ctx, { policy: 'writes', approver: one.approver });
    try {
      expect(await first.tools.execute('bash', { command: 'echo saved' }, { id: 'b1' })).toMatchObject({ isError: false });
      expect(one.asked[0]!.alwaysAllow).toEqual({ rule: 'bash: echo saved', file: configFile });
      // The same session: the rule holds at once.
      expect(await first.tools.execute('bash', { command: 'echo saved' }, { id: 'b2' })).toMatchObject({ isError: false });
      expect(one.asked).toHaveLength(1);
    } finally {
      await remove();
    }
    const text = fs.readFileSync(configFile, 'utf8');
    expect(text).toContain('# my rules');
    expect(readConfigFile(configFile)!.rules).toMatchObject([{ effect: 'allow', tool: 'bash', pattern: 'echo saved' }]);

    const second = await open({ approvalRules: new ApprovalRuleSet(readConfigFile(configFile)!.rules) });
    const two = person([{ decision: 'deny' }]);
    const removeTwo = installApprovals(second.ctx, { policy: 'writes', approver: two.approver });
    try {
      expect(await second.tools.execute('bash', { command: 'echo saved' })).toMatchObject({ isError: false });
      expect(two.asked).toEqual([]);
      expect(await second.tools.execute('bash', { command: 'echo other' })).toMatchObject({ isError: true });
      expect(two.asked.map((r) => (r.args as { command: string }).command)).toEqual(['echo other']);
    } finally {
      await removeTwo();
    }
  });

  it("a subagent's harness follows the same rules: its program's denied sub-call is blocked", async () => {
    const server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'clean up', prompt: 'Remove keep.txt.' } }]),
      reply.toolCalls([{ id: 'c1', name: 'run_code', args: { code: "return await tools.bash({ command: 'rm -f keep.txt' }).then(() => 'removed', (e) => e.code);", description: 'rm' } }]),
      reply.text('Could not remove it.'),
      reply.text('The subagent could not remove it.'),
    ]);
    const sessionDir = path.join(root, 'sessions');
    fs.mkdirSync(sessionDir);
    try {
      const harness = await open({ approvalRules: rulesFrom('permissions:\n  deny: ["bash: rm *"]\n') });
      const writer = createSessionWriter({ dir: sessionDir });
      const result = await runAgent({
        scope: harness.ctx,
        cwd: workspace,
        preset: 'standard',
        model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
        task: 'Delegate the cleanup.',
        sink: writer,
        sessionId: writer.sessionId,
        sessionDir,
        retry: { maxRetries: 0 },
      });
      writer.close();
      expect(result.reason).toBe('completed');
      expect(fs.existsSync(path.join(workspace, 'keep.txt'))).toBe(true);
      const child = listSessionFiles(sessionDir).find((f) => f.id !== writer.sessionId)!;
      const results = readSession(child.file).events.filter((e) => e.type === 'tool/result');
      expect(JSON.stringify(results)).toContain('PERMISSION_DENIED');
      const denials = readSession(child.file).events.filter((e) => e.type === 'tool/approval');
      expect(denials).toMatchObject([{ stage: 'answer', tool: 'bash', decision: 'deny', by: 'rule' }]);
    } finally {
      await server.close();
    }
  });
});
