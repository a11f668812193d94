// Spill (docs/sessions.md, "Spill"): a result over its limit is written whole to the session's spill
// directory and the model reads it back with `read` (native) or `tools.read` (a program), and that
// directory is the only path outside the workspace that becomes readable. Real harness, real sandbox,
// real HTTP model server on loopback; only the model's choices are scripted.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter, readSession, spillDirPath, type SessionEvent } from '../../src/session/index.js';
import { createSpillStore, type SpillStore } from '../../src/tools/spill.js';
import { defineTool } from '../../src/tools/types.js';
import { MAX_TOOL_RESULT_CHARS } from '../../src/limits.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { bwrapRequired, bwrapUsable, skipWithoutBwrap } from '../helpers/bwrap.js';

const LINES = 20_000;
const PAD = 'x'.repeat(88);
/** ~2 MB: 20,000 lines of 101 bytes. */
const BIG = Array.from({ length: LINES }, (_, i) => `line ${String(i + 1).padStart(6, '0')} ${PAD}`).join('\n') + '\n';
/** The same text, built inside a program. */
const BIG_IN_PROGRAM = `Array.from({ length: ${LINES} }, (_, i) => "line " + String(i + 1).padStart(6, "0") + " " + "x".repeat(88)).join("\\n") + "\\n"`;
const READ_LIMIT = 400;

let workspace: string;
let sessionDir: string;
let harness: Harness | undefined;
let server: ScriptedServer | undefined;

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-spill-ws-')));
  sessionDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-spill-log-')));
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function run(preset: 'ptc' | 'standard', sessionId: string, script: ScriptedReply[], extra: { spill?: SpillStore; setup?: (h: Harness) => void } = {}) {
  server = await startScriptedOpenAIServer(script);
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto' });
  extra.setup?.(harness);
  const writer = createSessionWriter({ dir: sessionDir, sessionId });
  const result = await runAgent({
    scope: harness.ctx,
    cwd: workspace,
    preset,
    model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
    task: 'Look at the big output.',
    sink: writer,
    sessionId,
    sessionDir,
    maxSteps: 10,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...(extra.spill ? { spill: extra.spill } : {}),
  });
  writer.close();
  return { result, events: readSession(writer.file).events };
}

function results(events: readonly SessionEvent[]): Extract<SessionEvent, { type: 'tool/result' }>[] {
  return events.filter((e): e is Extract<SessionEvent, { type: 'tool/result' }> => e.type === 'tool/result');
}

/** Read calls covering the whole of BIG in slices that fit one result. */
function readCalls(file: string): { id: string; name: string; args: object }[] {
  return Array.from({ length: LINES / READ_LIMIT }, (_, i) => ({ id: `r${i}`, name: 'read', args: { path: file, offset: 1 + i * READ_LIMIT, limit: READ_LIMIT } }));
}

/** The text the model saw through its read results (`cat -n` numbered lines), in order. */
function textFromReads(events: readonly SessionEvent[]): string {
  const lines: string[] = [];
  for (const result of results(events).filter((r) => r.name === 'read')) {
    expect(result.isError, result.content).toBe(false);
    for (const line of result.content.split('\n')) {
      const match = /^\s*(\d+)\t(.*)$/.exec(line);
      if (match) lines[Number(match[1]) - 1] = match[2]!;
    }
  }
  return lines.join('\n') + '\n';
}

describe('spill', () => {
  it('a 2 MB native tool result is spilled whole and read back in full with read', async () => {
    const id = '20260101-000000-native';
    const file = path.join(spillDirPath(sessionDir, id), 'big1.txt');
    const { result, events } = await run(
      'standard',
      id,
      [reply.toolCalls([{ id: 'big1', name: 'big_report', args: {} }]), reply.toolCalls(readCalls(file)), reply.text('Read it all.')],
      { setup: (h) => void h.tools.register(defineTool({ name: 'big_report', description: 'A big report.', inputSchema: { type: 'object' }, execute: () => BIG })) },
    );
    expect(result.reason).toBe('completed');
    const big = results(events).find((r) => r.id === 'big1')!;
    expect(big.spill).toEqual({ path: file, bytes: Buffer.byteLength(BIG), totalBytes: Buffer.byteLength(BIG) });
    // The model got a preview naming the file and the size, not the 2 MB.
    expect(big.content.length).toBeLessThan(MAX_TOOL_RESULT_CHARS);
    expect(big.content).toContain(file);
    expect(big.content).toContain(`${Buffer.byteLength(BIG)} bytes in ${LINES} lines`);
    expect(server!.requests[1]!.body.length).toBeLessThan(100_000);
    expect(fs.readFileSync(file, 'utf8')).toBe(BIG);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(textFromReads(events)).toBe(BIG);
  });

  it('a 2 MB bash stream is spilled whole and read back in full with read', async () => {
    const id = '20260101-000000-bash';
    const file = path.join(spillDirPath(sessionDir, id), 'sh1.stdout.txt');
    const { events } = await run('standard', id, [
      reply.toolCalls([{ id: 'sh1', name: 'bash', args: { command: `seq -f 'line %06g ${PAD}' 1 ${LINES}` } }]),
      reply.toolCalls(readCalls(file)),
      reply.text('Read it all.'),
    ]);
    const sh = results(events).find((r) => r.id === 'sh1')!;
    expect(sh.isError, sh.content).toBe(false);
    expect(sh.content).toContain(`stdout had ${Buffer.byteLength(BIG)} bytes`);
    expect(sh.content).toContain(file);
    expect(fs.readFileSync(file, 'utf8')).toBe(BIG);
    expect(textFromReads(events)).toBe(BIG);
    // stderr was empty, so nothing of it was kept.
    expect(fs.readdirSync(spillDirPath(sessionDir, id))).toEqual(['sh1.stdout.txt']);
  });

  it('a 2 MB program return value is spilled whole and a program reads it back in full with tools.read', async () => {
    const id = '20260101-000000-ptc';
    const file = path.join(spillDirPath(sessionDir, id), 'p1.txt');
    const readBack = `
      const parts = [];
      let offset = 1;
      for (;;) {
        const r = await tools.read({ path: ${JSON.stringify(file)}, offset, limit: 2000 });
        parts.push(r.content);
        if (!r.truncated) break;
        offset = r.endLine + 1;
      }
      const text = parts.join("\\n") + "\\n";
      return { same: text === ${BIG_IN_PROGRAM}, length: text.length, reads: parts.length };`;
    const { events } = await run('ptc', id, [
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: `return ${BIG_IN_PROGRAM};`, description: 'big value' } }]),
      reply.toolCalls([{ id: 'p2', name: 'run_code', args: { code: readBack, description: 'read it back' } }]),
      reply.text('Same.'),
    ]);
    const [first, second] = results(events);
    expect(first!.isError, first!.content).toBe(false);
    expect(first!.spill?.path).toBe(file);
    expect(first!.content).toContain(file);
    expect(fs.readFileSync(file, 'utf8')).toBe(BIG);
    expect(second!.isError, second!.content).toBe(false);
    expect(JSON.parse(second!.content)).toMatchObject({ same: true, length: BIG.length });
  });

  it('only the own spill directory becomes readable: not another session\'s, not the log, not through links, not inside the sandbox', async () => {
    const id = '20260101-000000-mine';
    const other = '20260101-000000-other';
    const own = createSpillStore({ dir: spillDirPath(sessionDir, id) }).writeText('seed', 'own spilled text\n')!;
    const theirs = createSpillStore({ dir: spillDirPath(sessionDir, other) }).writeText('seed', 'other session secret\n')!;
    fs.writeFileSync(path.join(sessionDir, `${other}.jsonl`), '{"type":"user/message","ts":"x","text":"other log secret"}\n');
    fs.writeFileSync(path.join(sessionDir, 'note.txt'), 'beside the logs\n');
    fs.symlinkSync(own.path, path.join(workspace, 'link-own'));
    fs.symlinkSync(theirs.path, path.join(workspace, 'link-other'));
    fs.symlinkSync(spillDirPath(sessionDir, other), path.join(workspace, 'link-other-dir'));
    const ownDir = spillDirPath(sessionDir, id);
    const program = `
      const attempt = async (p) => { try { return "read:" + (await tools.read({ path: p })).content; } catch (e) { return "denied:" + e.code; } };
      const sandboxed = (p) => { try { require("node:fs").readFileSync(p, "utf8"); return "read"; } catch { return "failed"; } };
      let write;
      try { await tools.write({ path: ${JSON.stringify(path.join(ownDir, 'planted.txt'))}, content: "x" }); write = "written"; } catch (e) { write = "denied:" + e.code; }
      return {
        own: await attempt(${JSON.stringify(own.path)}),
        other: await attempt(${JSON.stringify(theirs.path)}),
        otherLog: await attempt(${JSON.stringify(path.join(sessionDir, `${other}.jsonl`))}),
        ownLog: await attempt(${JSON.stringify(path.join(sessionDir, `${id}.jsonl`))}),
        dotdot: await attempt(${JSON.stringify(`${ownDir}/../${other}.jsonl`)}),
        sibling: await attempt(${JSON.stringify(path.join(sessionDir, 'note.txt'))}),
        linkOwn: await attempt("link-own"),
        linkOther: await attempt("link-other"),
        linkOtherDir: await attempt("link-other-dir/seed.txt"),
        sandboxOwn: sandboxed(${JSON.stringify(own.path)}),
        sandboxLink: sandboxed("link-own"),
        write,
      };`;
    const { events } = await run('ptc', id, [
      reply.toolCalls([{ id: 'h1', name: 'run_code', args: { code: program, description: 'probe' } }]),
      reply.text('Done.'),
    ]);
    const probe = results(events)[0]!;
    expect(probe.isError, probe.content).toBe(false);
    const seen = JSON.parse(probe.content) as Record<string, string>;
    // Control: the session's own spill file reads, directly and through a workspace link to it.
    expect(seen['own']).toBe('read:own spilled text');
    expect(seen['linkOwn']).toBe('read:own spilled text');
    for (const key of ['other', 'otherLog', 'ownLog', 'dotdot', 'sibling', 'linkOther', 'linkOtherDir', 'write']) {
      expect(seen[key], key).toBe('denied:PERMISSION_DENIED');
    }
    // Inside the sandbox nothing new is readable: the program reads spill files only through tools.read.
    expect(seen['sandboxOwn']).toBe('failed');
    // Through a workspace link, under bwrap only: Node's permission model (the fallback) follows a
    // link inside an allowed directory to any file, spill or not (docs/sandbox.md, "Backends").
    if (bwrapUsable || bwrapRequired) expect(seen['sandboxLink']).toBe('failed');
    expect(fs.existsSync(path.join(ownDir, 'planted.txt'))).toBe(false);
  });

  it.skipIf(skipWithoutBwrap)('bash under bwrap cannot read the spill directory either', async () => {
    const id = '20260101-000000-bwrap';
    const own = createSpillStore({ dir: spillDirPath(sessionDir, id) }).writeText('seed', 'own spilled text\n')!;
    fs.symlinkSync(own.path, path.join(workspace, 'link-own'));
    fs.writeFileSync(path.join(workspace, 'ws.txt'), 'workspace text\n');
    const { events } = await run('standard', id, [
      reply.toolCalls([{ id: 'b1', name: 'bash', args: { command: `cat ws.txt; cat ${JSON.stringify(own.path)}; cat link-own; echo done` } }]),
      reply.text('Done.'),
    ]);
    const out = results(events)[0]!;
    // Control: the workspace file reads; the spill file, directly or through the link, does not.
    expect(out.content).toContain('workspace text');
    expect(out.content).toContain('done');
    expect(out.content).not.toContain('own spilled text');
  });

  it('the spill budget holds: past it, output is cut with a note and nothing more is written', async () => {
    const id = '20260101-000000-cap';
    const cap = 300_000;
    const store = createSpillStore({ dir: spillDirPath(sessionDir, id), maxTotalBytes: cap });
    const flood = (n: number) => ({ id: `f${n}`, name: 'run_code', args: { code: `return "y".repeat(99) + "\\n" + ("z".repeat(99) + "\\n").repeat(2000);`, description: `flood ${n}` } });
    const { events } = await run('ptc', id, [reply.toolCalls([flood(1)]), reply.toolCalls([flood(2)]), reply.toolCalls([flood(3)]), reply.text('Done.')], { spill: store });
    const [one, two, three] = results(events);
    expect(one!.spill).toBeDefined();
    expect(two!.spill).toBeUndefined();
    expect(three!.spill).toBeUndefined();
    expect(two!.content).toContain('spill budget');
    expect(two!.content.length).toBeLessThan(MAX_TOOL_RESULT_CHARS);
    const dir = spillDirPath(sessionDir, id);
    const total = fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
    expect(total).toBeLessThanOrEqual(cap);
    expect(fs.readdirSync(dir)).toEqual(['f1.txt']);
  });

  it('ptc sessions rm removes the log with its spill directory', async () => {
    const id = '20260101-000000-rm';
    await run('ptc', id, [
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: 'return ("q".repeat(99) + "\\n").repeat(1000);', description: 'spill' } }]),
      reply.text('Done.'),
    ]);
    expect(fs.readdirSync(spillDirPath(sessionDir, id))).toEqual(['p1.txt']);
    const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli/ptc.cjs');
    const rm = spawnSync(process.execPath, [bin, 'sessions', 'rm', id, '--session-dir', sessionDir], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace } });
    expect(rm.status, rm.stderr).toBe(0);
    expect(rm.stderr).toContain(spillDirPath(sessionDir, id));
    expect(fs.readdirSync(sessionDir)).toEqual([]);
  });
});
