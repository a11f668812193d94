// Each built-in tool shows the model exactly the JSON Schema its zod contract gives, converted the way
// defineTool converts a user tool's zod schemas; its arguments are checked by both (ajv on the JSON
// Schema, then the contract's parse), and bad ones still come back as INVALID_ARGS naming the field.

import { afterAll, describe, expect, it } from 'vitest';
import { createContext } from '../../context/context.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from '../../limits.js';
import { DEFAULT_BASH_TIMEOUT_MS } from '../shell-limits.js';
import { createRunCodeTool } from '../../ptc/run-code.js';
import type { PtcRuntime } from '../../ptc-runtime/types.js';
import { createSkillTool } from '../../skills/skill-tool.js';
import { defineTool } from '../../tools/define-tool.js';
import { parseNow, parseWith } from '../../tools/parsing-schema.js';
import { RUN_CODE_TOOL_NAME, ToolRuntime } from '../../tools/tool-runtime.js';
import type { AnyToolDefinition } from '../../tools/types.js';
import { vetSchemas } from '../../tools/vetted-schemas.js';
import { wireSchema } from '../../tools/wire-schema.js';
import { createBashTool } from '../bash.js';
import { BUILTIN_TOOL_CATALOG } from '../catalog.js';
import { createGoalDoneTool } from '../goal-done.js';
import { createPersistentBashTool } from '../persistent-bash.js';
import { createPlanProposeTool } from '../../plan-mode/plan-propose-tool.js';
import { CONTRACTS } from './all.js';

const policy = { cwd: '/nonexistent-workspace', read: [], write: [], network: false, processes: true };
type ContractName = keyof typeof CONTRACTS;

const made: AnyToolDefinition[] = [];
function tool(make: () => AnyToolDefinition): AnyToolDefinition {
  const t = make();
  made.push(t);
  return t;
}
afterAll(async () => {
  for (const t of made) if ('dispose' in t && typeof t.dispose === 'function') await (t.dispose as () => Promise<void>).call(t);
});

const catalog = (key: string) => () => BUILTIN_TOOL_CATALOG[key]!({ policy, sandbox: 'off' });
const HARNESS_TIMEOUT = { defaultMs: DEFAULT_TIMEOUT_MS, minMs: MIN_TIMEOUT_MS, maxMs: MAX_TIMEOUT_MS };
/** Only the runtime's language and deadline bounds enter run_code's definition; the runtime runs nothing here. */
const runCode = (timeout = HARNESS_TIMEOUT) => () =>
  createRunCodeTool({ runtime: { language: 'typescript', timeout } as unknown as PtcRuntime, cwd: policy.cwd });

/** Every built-in tool, by the contract it is made from, with the smallest valid arguments. */
const BUILTINS: Record<ContractName, { make: () => AnyToolDefinition; valid: Record<string, unknown> }> = {
  bash: { make: catalog('bash'), valid: { command: 'true' } },
  edit: { make: catalog('edit'), valid: { path: 'a.txt', old_string: 'x', new_string: 'y' } },
  glob: { make: catalog('glob'), valid: { pattern: '*.ts' } },
  'goal-done': { make: () => createGoalDoneTool(undefined, () => {}), valid: { evidence: 'the tests pass' } },
  grep: { make: catalog('grep'), valid: { pattern: 'x' } },
  'persistent-bash': { make: catalog('bash-session'), valid: { command: 'true' } },
  'plan-propose': { make: createPlanProposeTool, valid: { markdown: '## Plan', steps: [] } },
  read: { make: catalog('read'), valid: { path: 'a.txt' } },
  skill: { make: () => createSkillTool([]), valid: { name: 'writing-ptc-programs' } },
  'run-code': { make: runCode(), valid: { code: 'return 1', description: 'one' } },
  'str-replace-editor': { make: catalog('str_replace_editor'), valid: { command: 'view', path: 'a.txt' } },
  task: { make: catalog('task'), valid: { description: 'look around', prompt: 'List the files.' } },
  todo: { make: catalog('todo'), valid: { todos: [] } },
  'web-fetch': { make: catalog('web_fetch'), valid: { url: 'http://127.0.0.1/' } },
  'web-search': { make: catalog('web_search'), valid: { query: 'zod' } },
  write: { make: catalog('write'), valid: { path: 'a.txt', content: '' } },
};
const names = Object.keys(BUILTINS) as ContractName[];

function registryWith(def: AnyToolDefinition): ToolRuntime {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root));
  // As the builtin-tools row registers them (src/presets/builtin-tools-plugin.ts).
  if (def.name !== RUN_CODE_TOOL_NAME) {
    root.tools.register(vetSchemas(def));
    return root.tools;
  }
  // The transport, as the ptc plugin installs it; only a ptc scope sees and executes it.
  root.tools.provideTransport(vetSchemas(def));
  root.tools.presentAs('ptc');
  return root.tools;
}

describe('built-in tool contracts', () => {
  it('cover every contract, and every built-in of the catalog has one', () => {
    expect(names.sort()).toEqual(Object.keys(CONTRACTS).sort());
    const covered = new Set(names.map((name) => tool(BUILTINS[name].make).name));
    for (const key of Object.keys(BUILTIN_TOOL_CATALOG)) expect(covered).toContain(tool(catalog(key)).name);
  });

  it.each(names)('%s: the model sees the JSON Schema of its zod contract, as defineTool would make it', (name) => {
    const def = tool(BUILTINS[name].make);
    const contract = CONTRACTS[name];
    const seen = registryWith(def).wireTools().find((s) => s.name === def.name);
    expect(seen?.inputSchema).toStrictEqual(wireSchema(contract.input, 'input', name));
    expect(seen?.outputSchema).toStrictEqual(wireSchema(contract.output, 'output', name));
    // The user-tool path gives the same schemas for the same zod.
    const asUserTool = defineTool({ name: def.name, description: def.description, input: contract.input, output: contract.output, execute: () => '' as never });
    expect(seen?.inputSchema).toStrictEqual(asUserTool.inputSchema);
    expect(seen?.outputSchema).toStrictEqual(asUserTool.outputSchema);
  });

  it.each(names)('%s: registers unvetted (schemas compiled, examples checked), as the vetted registration assumes', async (name) => {
    const def = tool(BUILTINS[name].make);
    const root = createContext();
    root.provide('tools', new ToolRuntime(root));
    // The tool's parser loaded first (it loads at the first call), so registration parses the examples with the contract too.
    if (def.input === undefined) throw new Error(`${name} has no parsing schema`);
    await expect(parseWith(def.input, BUILTINS[name].valid)).resolves.toMatchObject({ ok: true });
    expect(parseNow(def.input, BUILTINS[name].valid)).toMatchObject({ ok: true });
    if (def.name === RUN_CODE_TOOL_NAME) expect(() => root.tools.provideTransport(def)).not.toThrow();
    else expect(() => root.tools.register(def)).not.toThrow();
  });

  it.each(names)('%s: its examples and its smallest valid call parse with its contract', (name) => {
    const def = tool(BUILTINS[name].make);
    for (const example of [...(def.examples ?? []), BUILTINS[name].valid]) {
      expect(CONTRACTS[name].input.safeParse(example).success).toBe(true);
    }
  });

  it.each(names)('%s: an unknown argument is INVALID_ARGS naming it, for ajv and the contract alike', async (name) => {
    const def = tool(BUILTINS[name].make);
    const args = { ...BUILTINS[name].valid, no_such_argument: 1 };
    expect(CONTRACTS[name].input.safeParse(args).success).toBe(false);
    const result = await registryWith(def).execute(def.name, args);
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain('no_such_argument');
    expect(result.error?.message).toContain("match the tool's input schema");
  });

  it.each(names)('%s: a required argument of the wrong type is INVALID_ARGS naming it', async (name) => {
    const def = tool(BUILTINS[name].make);
    const [first] = Object.keys(BUILTINS[name].valid);
    if (first === undefined) throw new Error(`no valid arguments for ${name}`);
    const args = { ...BUILTINS[name].valid, [first]: 42 };
    expect(CONTRACTS[name].input.safeParse(args).success).toBe(false);
    const result = await registryWith(def).execute(def.name, args);
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain(`/${first}`);
  });

  it('task: a refinement JSON Schema cannot carry is checked by the contract, loaded at the first call', async () => {
    const def = tool(catalog('task'));
    const args = { description: 'd', prompt: 'p', preset: 'evil.yml' };
    const tools = registryWith(def);
    for (let call = 0; call < 2; call++) {
      const result = await tools.execute('task', args);
      expect(result.error?.code).toBe('INVALID_ARGS');
      expect(result.error?.message).toContain('/preset');
      expect(result.error?.message).toContain('not a path');
    }
  });

  it.each([
    ['bash', () => createBashTool({ policy, sandbox: 'off', timeoutMs: 5000 }), CONTRACTS.bash],
    ['persistent bash', () => createPersistentBashTool({ policy, sandbox: 'off', timeoutMs: 5000 }), CONTRACTS['persistent-bash']],
  ] as const)('%s with another default deadline shows what its contract gives for it', (_label, make, contract) => {
    expect(5000).not.toBe(DEFAULT_BASH_TIMEOUT_MS);
    const def = tool(make);
    expect(def.inputSchema).toStrictEqual(wireSchema(contract.inputFor(5000), 'input', 'bash'));
    expect(JSON.stringify(def.inputSchema)).toContain('default 5000');
  });

  it('run_code on a runtime with other deadline bounds shows what its contract gives for them', () => {
    const timeout = { defaultMs: 3000, minMs: 500, maxMs: 9000 };
    const def = tool(runCode(timeout));
    expect(def.inputSchema).toStrictEqual(wireSchema(CONTRACTS['run-code'].inputFor(timeout), 'input', 'run_code'));
    expect(def.inputSchema).toMatchObject({ properties: { timeoutMs: { minimum: 500, maximum: 9000, description: expect.stringContaining('default 3000') } } });
  });
});
