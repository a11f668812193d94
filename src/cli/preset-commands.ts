// `ptc presets list | show <name>`: the presets that resolve here, and what one assembles into.

import { createHarness } from '../harness.js';
import { readPresetFile } from '../presets/preset-file.js';
import type { ServiceProvider } from '../presets/service-rows.js';
import { listPresetsWithTrust } from '../trust/trusted-preset.js';
import { trustCommand, untrustedReason } from '../trust/workspace-trust.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';
import { harnessOptionsOf, checkWorkspace, type CommandOutput, type WorkspaceOptions } from './commands.js';

export interface PresetsListOptions {
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * One line per preset: name, where it comes from, its description. A shadowed one says by what; a
 * workspace preset of an untrusted workspace says so, and the preset of that name used instead is
 * not shadowed by it (docs/presets.md, "Trust").
 */
export function runPresetsList(options: PresetsListOptions): CommandOutput {
  const workspace = checkWorkspace(options.cwd);
  const { presets, trust } = listPresetsWithTrust({ workspace, env: options.env });
  const winner = new Map<string, string>();
  const rows = presets.map((p) => {
    let description: string;
    try {
      description = readPresetFile(p.file).description;
    } catch (error) {
      description = `(invalid: ${(error as Error).message.split('\n')[0]})`;
    }
    const origin = p.untrusted ? `${p.origin}, not trusted: not used` : p.shadowed ? `${p.origin}, shadowed by ${winner.get(p.name)}` : p.origin;
    if (!p.shadowed && !p.untrusted) winner.set(p.name, p.origin);
    return [p.name, origin, description] as const;
  });
  const nameWidth = Math.max(4, ...rows.map((r) => r[0].length));
  const originWidth = Math.max(6, ...rows.map((r) => r[1].length));
  const lines = rows.map(([name, origin, description]) => `${name.padEnd(nameWidth)}  ${origin.padEnd(originWidth)}  ${description}`);
  const untrusted = presets.some((p) => p.untrusted) && trust !== undefined;
  const stderr = untrusted ? `ptc: the workspace presets above are not used: ${untrustedReason(trust)}. Review and trust them with \`${trustCommand(trust.config.workspace)}\`.\n` : undefined;
  return { stdout: `${lines.join('\n')}\n`, ...(stderr ? { stderr } : {}), exitCode: 0 };
}

export interface PresetsShowOptions extends WorkspaceOptions {
  readonly name: string;
  readonly json?: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The rows of a preset, and the tool list and presentation it assembles into. */
export async function runPresetsShow(options: PresetsShowOptions): Promise<CommandOutput> {
  const harness = await createHarness({ ...harnessOptionsOf({ ...options, preset: options.name }), env: options.env });
  try {
    const preset = harness.preset;
    if (options.json) {
      const rows = preset.rows.map((r) => ({ ...r, state: r.state }));
      return { stdout: `${JSON.stringify({ ...preset, rows }, null, 2)}\n`, exitCode: 0 };
    }
    const rows = preset.rows.map((r) => {
      const config = r.config === undefined ? '' : ` ${JSON.stringify(r.config)}`;
      const plugin = r.plugin === r.name ? '' : ` (plugin ${r.plugin})`;
      return `  ${r.index}. ${r.name}${plugin}${config}  [${r.state}]  ${r.at}`;
    });
    const width = Math.max(0, ...preset.services.map((service) => service.name.length));
    const services = preset.services.map((service) => `  ${service.name.padEnd(width)}  ${providerText(service)}`);
    const presentation =
      preset.mode === 'ptc'
        ? `ptc: the model sees ${RUN_CODE_TOOL_NAME}; the tools below are its SDK`
        : 'native: the model calls the tools below directly';
    const text = [
      `preset ${preset.name} (${preset.origin}: ${preset.file})`,
      preset.description,
      '',
      'rows:',
      ...rows,
      '',
      `presentation: ${presentation}`,
      `tools: ${preset.tools.join(', ')}`,
      '',
      'services:',
      ...services,
    ];
    return { stdout: `${text.join('\n')}\n`, exitCode: 0 };
  } finally {
    await harness.dispose();
  }
}

/** `row 6 \`llm\``, `row 9 \`loop\` (default)`, or `the harness` for its own services. */
function providerText(service: ServiceProvider): string {
  if (service.row === undefined) return service.provider === 'root' ? 'the harness' : `plugin ${service.provider}`;
  const plugin = service.provider === service.row.name ? '' : ` (plugin ${service.provider})`;
  return `row ${service.row.index} \`${service.row.name}\`${plugin}${service.row.default ? ' (default)' : ''}`;
}
