// `ptc workflows list|show NAME|run NAME --input JSON` (docs/workflows.md, "Commands"): the workflows a
// preset's `workflows` row registers (default preset `standard`), the files it left out and why
// (file:line), one workflow's header and program, and one run of it through the real pipeline,
// printing its return value. Warnings and the untrusted-workspace note come from the row itself, on
// stderr. The work is imported when a command runs.

import path from 'node:path';
import { Command } from 'commander';
import type { CommandOutput } from './commands.js';
import { programLanguageOf } from '../languages/program-language.js';

type Env = Readonly<Record<string, string | undefined>>;

interface WorkflowsCommandOptions {
  readonly cwd?: string;
  readonly preset?: string;
  readonly sandbox?: string;
  readonly env: Env;
}

const DEFAULT_PRESET = 'standard';

export function buildWorkflowsCommand(print: (out: CommandOutput) => void, env: Env = process.env): Command {
  const workflows = new Command('workflows').description('list the saved workflows (typed PTC programs that are tools), show one, or run one');
  const common = (c: Command) =>
    c
      .option('--cwd <dir>', 'the workspace (default: current directory)')
      .option('--preset <name>', `the preset whose tools the workflows are checked against and call (default: ${DEFAULT_PRESET})`);
  common(workflows.command('list').description('every workflow: name, language, file, status (registered, or the error that keeps it out)'))
    .option('--json', 'print JSON')
    .action(async (o: { cwd?: string; preset?: string; json?: boolean }) => print(await runWorkflowsList({ ...o, env }, o.json === true)));
  common(workflows.command('show').description("a workflow's description, input schema, file and program").argument('<name>', 'the workflow (without workflow_)')).action(
    async (name: string, o: { cwd?: string; preset?: string }) => print(await runWorkflowsShow(name, { ...o, env })),
  );
  common(workflows.command('run').description('run a workflow with a JSON input; prints its return value').argument('<name>', 'the workflow (without workflow_)'))
    .requiredOption('--input <json>', 'the input, a JSON object matching its schema')
    .option('--sandbox <mode>', 'required | auto | off (default auto)')
    .action(async (name: string, o: { cwd?: string; preset?: string; input: string; sandbox?: string }) => print(await runWorkflowsRun(name, o.input, { ...o, env })));
  return workflows;
}

async function openHarness(options: WorkflowsCommandOptions) {
  const [{ checkWorkspace }, { createHarness }, { ConfigError }] = await Promise.all([import('./commands.js'), import('../harness.js'), import('../errors.js')]);
  const cwd = checkWorkspace(options.cwd);
  const sandbox = options.sandbox ?? 'auto';
  if (sandbox !== 'required' && sandbox !== 'auto' && sandbox !== 'off') throw new ConfigError(`--sandbox ${sandbox}: use required, auto or off.`);
  const harness = await createHarness({ cwd, preset: options.preset ?? DEFAULT_PRESET, env: options.env, sandbox });
  const service = harness.ctx.get('workflows');
  if (service === undefined) {
    await harness.dispose();
    throw new ConfigError(`preset ${JSON.stringify(harness.preset.name)} has no \`workflows\` row, so it registers no workflows; use --preset standard (or add the row).`);
  }
  return { harness, service };
}

export async function runWorkflowsList(options: WorkflowsCommandOptions, json: boolean): Promise<CommandOutput> {
  const { harness, service } = await openHarness(options);
  try {
    const report = service.report();
    const rows = [
      ...report.workflows.map((w) => ({ name: w.name, tool: `workflow_${w.name}`, language: w.language, layer: w.layer, file: w.file, status: 'registered', overrides: w.overrides })),
      ...report.broken.map((b) => ({ name: nameOf(b.file), language: languageOf(b.file), layer: b.layer, file: b.file, status: 'broken', error: `${b.problem.file}:${b.problem.line}: ${b.problem.message}` })),
    ];
    if (json) return { stdout: `${JSON.stringify({ workflows: rows, searched: report.layers, workspaceRead: service.workspaceRead }, null, 2)}\n`, exitCode: 0 };
    const lines: string[] = [];
    for (const w of report.workflows) {
      lines.push(`${w.name}  ${w.language}  (${w.layer})  ${w.file}  registered as workflow_${w.name}`);
      for (const o of w.overrides) lines.push(`    overrides ${o}`);
    }
    for (const b of report.broken) lines.push(`${nameOf(b.file)}  ${languageOf(b.file)}  (${b.layer})  ${b.file}  NOT registered`, `    CONFIG ${b.problem.file}:${b.problem.line}: ${b.problem.message}`);
    if (lines.length === 0) lines.push('No workflows found.');
    lines.push('', 'Searched, lowest first (a later folder overrides an earlier one by name):', ...report.layers.map((l) => `  ${l.layer.padEnd(9)} ${l.dir}`));
    return { stdout: `${lines.join('\n')}\n`, exitCode: 0 };
  } finally {
    await harness.dispose();
  }
}

export async function runWorkflowsShow(name: string, options: WorkflowsCommandOptions): Promise<CommandOutput> {
  const [{ harness, service }, { ConfigError }] = await Promise.all([openHarness(options), import('../errors.js')]);
  try {
    const report = service.report();
    const workflow = report.workflows.find((w) => w.name === name);
    if (workflow === undefined) {
      const broken = report.broken.find((b) => nameOf(b.file) === name);
      if (broken !== undefined) {
        return {
          stdout: `name      ${name}\nfile      ${broken.file}  (${broken.layer})\nstatus    NOT registered: CONFIG ${broken.problem.file}:${broken.problem.line}: ${broken.problem.message}\n`,
          exitCode: 0,
        };
      }
      throw new ConfigError(`No workflow named ${JSON.stringify(name)}. \`ptc workflows list\` shows the workflows found${report.workflows.length ? ` (${report.workflows.map((w) => w.name).join(', ')})` : ''}.`);
    }
    const lines = [
      `name         ${workflow.name}  (tool workflow_${workflow.name})`,
      `description  ${workflow.description}`,
      `language     ${workflow.language}`,
      `file         ${workflow.file}  (${workflow.layer})`,
      ...workflow.overrides.map((o) => `overrides    ${o}`),
      `status       registered`,
      `input        ${JSON.stringify(workflow.input)}`,
      '',
      workflow.source.trimEnd(),
    ];
    return { stdout: `${lines.join('\n')}\n`, exitCode: 0 };
  } finally {
    await harness.dispose();
  }
}

export async function runWorkflowsRun(name: string, inputText: string, options: WorkflowsCommandOptions): Promise<CommandOutput> {
  const { ConfigError } = await import('../errors.js');
  let input: unknown;
  try {
    input = JSON.parse(inputText);
  } catch (error) {
    throw new ConfigError(`--input is not JSON (${(error as Error).message}); pass an object, e.g. --input '{"dir": "src"}'.`);
  }
  const { harness, service } = await openHarness(options);
  try {
    const report = service.report();
    if (!report.workflows.some((w) => w.name === name)) {
      const broken = report.broken.find((b) => nameOf(b.file) === name);
      if (broken !== undefined) throw new ConfigError(`workflow ${name} is not registered: CONFIG ${broken.problem.file}:${broken.problem.line}: ${broken.problem.message}`);
      throw new ConfigError(`No workflow named ${JSON.stringify(name)}. \`ptc workflows list\` shows the workflows found.`);
    }
    // A native scope whatever the preset's presentation: the workflow is called as a tool, directly.
    let scope: import('../context/context.js').Context | undefined;
    harness.ctx.plugin({ name: 'workflows-run', apply: (child) => void (child.tools.presentAs('native'), (scope = child)) });
    const result = await harness.tools.execute(`workflow_${name}`, input, { ...(scope ? { scope } : {}), id: 'cli:1' });
    if (result.isError) {
      const code = result.error?.code ?? 'TOOL_FAILED';
      return { stdout: '', stderr: `ptc: ${result.error?.message ?? result.content}\n`, exitCode: code === 'INVALID_ARGS' ? 2 : 1 };
    }
    // JSON always (a string too), so a script can parse what it prints.
    return { stdout: `${JSON.stringify(result.value ?? null, null, 2)}\n`, exitCode: 0 };
  } finally {
    await harness.dispose();
  }
}

function nameOf(file: string): string {
  return path.basename(file).replace(/\.(ts|py)$/, '');
}

function languageOf(file: string): string {
  return programLanguageOf(file);
}
