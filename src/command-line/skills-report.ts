// The skills report of `ptc skills list|show` and the chat's `/skills` (docs/skills.md, "Commands"):
// every skill of every layer, which file wins for each name and what it overrides, and one skill's
// body with the files beside it. What it needs is imported when it runs.

import type { CommandOutput } from './command-output.js';

type Env = Readonly<Record<string, string | undefined>>;

interface SkillsCommandOptions {
  readonly cwd?: string;
  readonly env: Env;
}

async function skillSetOf(options: SkillsCommandOptions) {
  const [{ checkWorkspace }, { checkWorkspaceTrust, trustCommand }, { loadSkillSet }, { formatWarning }, fs, path, { WORKSPACE_SKILL_DIRS }] = await Promise.all([
    import('./harness-options.js'),
    import('../trust/workspace-trust.js'),
    import('../skills/skill-config.js'),
    import('../skills/skill-file.js'),
    import('node:fs'),
    import('node:path'),
    import('../skills/skill-dirs.js'),
  ]);
  const workspace = checkWorkspace(options.cwd);
  let trusted = false;
  let real = workspace;
  try {
    const trust = checkWorkspaceTrust(workspace, { env: options.env });
    trusted = trust.state === 'trusted';
    real = trust.config.workspace;
  } catch {
    // Configuration that cannot be reviewed is not trusted.
  }
  const set = loadSkillSet({ workspace: real, env: options.env, trusted });
  const notes = set.warnings.map((w) => `ptc: warning: ${formatWarning(w)}`);
  if (!trusted && WORKSPACE_SKILL_DIRS.some((d) => fs.existsSync(path.join(real, d)))) {
    notes.push(`ptc: note: the skills of workspace ${real} are not loaded: it is not trusted (or changed since). Review and trust it with \`${trustCommand(real)}\`.`);
  }
  return { set, notes };
}

/** `ptc skills list` and the chat's `/skills`: every skill by name, the file that wins, its layer. */
export async function runSkillsList(options: SkillsCommandOptions & { readonly json: boolean }): Promise<CommandOutput> {
  const { set, notes } = await skillSetOf(options);
  const stderr = notes.length > 0 ? { stderr: `${notes.join('\n')}\n` } : {};
  if (options.json) {
    const row = (s: (typeof set.skills)[number], enabled: boolean) => ({ name: s.name, description: s.description, layer: s.layer, file: s.file, overrides: s.overrides, enabled });
    const all = [...set.skills.map((s) => row(s, true)), ...set.turnedOff.map((s) => row(s, false))];
    return { stdout: `${JSON.stringify({ skills: all, warnings: set.warnings, searched: set.layers }, null, 2)}\n`, ...stderr, exitCode: 0 };
  }
  const lines: string[] = [];
  for (const s of set.skills) {
    lines.push(`${s.name}  (${s.layer})  ${s.file}`, `    ${s.description}`);
    for (const o of s.overrides) lines.push(`    overrides ${o}`);
  }
  for (const s of set.turnedOff) lines.push(`${s.name}  (${s.layer}, turned off by skills.enabled/disabled)  ${s.file}`);
  if (lines.length === 0) lines.push('No skills found.');
  lines.push('', 'Searched, lowest first (a later folder overrides an earlier one by name):', ...set.layers.map((l) => `  ${l.layer.padEnd(9)} ${l.dir}`));
  return { stdout: `${lines.join('\n')}\n`, ...stderr, exitCode: 0 };
}

/** `ptc skills show NAME` and `/skills NAME`: one skill's description, file, body and the files beside it. */
export async function runSkillsShow(name: string, options: SkillsCommandOptions): Promise<CommandOutput> {
  const [{ set, notes }, { ConfigError }, { didYouMean }, { filesBeside }] = await Promise.all([
    skillSetOf(options),
    import('../errors.js'),
    import('../did-you-mean.js'),
    import('../skills/skill-tool.js'),
  ]);
  const skill = set.skills.find((s) => s.name === name) ?? set.turnedOff.find((s) => s.name === name);
  if (skill === undefined) {
    const names = set.skills.map((s) => s.name);
    throw new ConfigError(`No skill named ${JSON.stringify(name)}.${didYouMean(name, names)} \`ptc skills list\` shows the skills found${names.length ? ` (${names.join(', ')})` : ''}.`);
  }
  const { files, more } = filesBeside(skill.dir);
  const lines = [
    `name         ${skill.name}`,
    `description  ${skill.description}`,
    `file         ${skill.file}  (${skill.layer})`,
    ...skill.overrides.map((o) => `overrides    ${o}`),
    ...(files.length > 0 ? ['files beside it:', ...files.map((f) => `  ${f}`), ...(more > 0 ? [`  … and ${more} more`] : [])] : []),
    '',
    skill.body.trimEnd(),
  ];
  return { stdout: `${lines.join('\n')}\n`, ...(notes.length > 0 ? { stderr: `${notes.join('\n')}\n` } : {}), exitCode: 0 };
}
