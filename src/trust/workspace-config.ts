// What a workspace would make the host load: its `.ptc/presets/` files, the plugin files their rows
// name, the packages rows resolve from the workspace, and the MCP commands `mcp` rows start. The
// list `ptc trust` shows and the digest trust is recorded against (docs/presets.md, "Trust").

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ruleText } from '../approvals/approval-rules.js';
import { projectConfigPath } from '../config/config-paths.js';
import { readConfigFile } from '../config/load-config-file.js';
import { ConfigError } from '../errors.js';
import { MAX_TRUST_FILE_BYTES, MAX_TRUST_FILES, TRUST_PACKAGE_DEPTH, TRUST_PRESET_DIR_DEPTH, TRUST_SKILL_DIR_DEPTH } from './limits.js';
import { mcpRowKind } from '../mcp/client/row-kind.js';
import { rowKindOf } from '../row-kind.js';
import { SHIPPED_ROWS } from '../presets/shipped-rows.js';
import { findPackage, isInside, realOrSelf } from '../presets/package-location.js';
import { isModulePath, isPackageName } from '../presets/plugin-module.js';
import { readPresetFile, type PresetRow } from '../presets/preset-file.js';
import { listPresets, presetDirectories, type PresetSearch } from '../presets/resolve-preset.js';
import { WORKSPACE_SKILL_DIRS } from '../skills/skill-dirs.js';
import { WORKSPACE_WORKFLOWS_DIR } from '../workflows/workflow-dirs.js';
import { isCodeFile, packageProbes, readModuleImports, resolveImport } from '../presets/module-imports.js';

export interface WorkspacePackage {
  readonly name: string;
  /** The package directory (real path). */
  readonly dir: string;
  /** The rows that name it (`file:line`) and the modules that import it (their path). */
  readonly namedAt: readonly string[];
}

export interface WorkspaceConfig {
  /** The workspace's real path: what trust is keyed by. */
  readonly workspace: string;
  /** `.ptc/config.yaml` (docs/config.md), with its approval rules, or the problem when it does not load. */
  readonly configFile?: { readonly file: string; readonly rules: readonly string[]; readonly invalid?: string };
  /** Preset files under `.ptc/presets/`, each with the problem when it does not parse. */
  readonly presets: readonly { readonly file: string; readonly invalid?: string }[];
  /** The workspace's SKILL.md files (`.ptc/skills`, `.claude/skills`, `.agents/skills`): their text enters the prompt (docs/skills.md). */
  readonly skills: readonly string[];
  /** The workspace's workflow files (`.ptc/workflows`): each becomes a tool whose program runs in the sandbox (docs/workflows.md). */
  readonly workflows: readonly string[];
  /** Plugin files the workspace's preset rows name (imported on the host). */
  readonly plugins: readonly { readonly file: string; readonly missing: boolean }[];
  readonly packages: readonly WorkspacePackage[];
  /** `mcp` rows' servers: `<file:line> server \`name\`: command args` (started on the host). */
  readonly commands: readonly string[];
  /** Every file hashed into the digest (other files under `.ptc/presets/`, imported modules, package files too). */
  readonly files: readonly string[];
  /** Files reached by following imports from plugin files and packages, and every file of a workspace package. */
  readonly imported: readonly string[];
  /** `file:line` of dynamic imports and requires whose specifier is computed: not followed (the trusted code's own choice). */
  readonly computed: readonly string[];
  /** Paths Node would try before what it found (absent now): a file created there later changes the digest. */
  readonly probed: readonly string[];
  /** `sha256:<hex>` over every file's path and content and each package's location. */
  readonly digest: string;
  /** Nothing here would load: no trust is needed. */
  readonly empty: boolean;
}

/**
 * Collects the configuration of `workspace`. Packages count when a workspace preset names them
 * (wherever they are found from the workspace) or when a `$PTC_HOME` or shipped preset names one that
 * is found inside the workspace. Too many or too large files are CONFIG: that much is not reviewable.
 */
export function collectWorkspaceConfig(workspace: string, search: Omit<PresetSearch, 'workspace'> = {}): WorkspaceConfig {
  const root = realPath(workspace);
  const presetDir = path.join(root, '.ptc', 'presets');
  const hashed = new Map<string, string>();
  const hash = (file: string): void => {
    if (hashed.has(file)) return;
    if (hashed.size >= MAX_TRUST_FILES) {
      throw new ConfigError(`The workspace ${root} names more than ${MAX_TRUST_FILES} configuration files (.ptc/presets, plugins, packages); too many to review. Remove some.`);
    }
    hashed.set(file, digestOfFile(file));
  };

  const presets: { file: string; invalid?: string }[] = [];
  const plugins = new Map<string, boolean>();
  const packages = new Map<string, WorkspacePackage>();
  const commands: string[] = [];
  const imported = new Set<string>();
  const computed: string[] = [];
  const probed = new Set<string>();
  const scanned = new Set<string>();
  const queue: string[] = [];
  const follow = (file: string): void => {
    if (scanned.has(file) || !isCodeFile(file)) return;
    scanned.add(file);
    queue.push(file);
  };
  /** A package inside the workspace: every file of its directory, and what those import. */
  const addWorkspacePackage = (name: string, dir: string, namedAt: string): void => {
    const key = `${name}\0${dir}`;
    const known = packages.get(key);
    packages.set(key, { name, dir, namedAt: [...(known?.namedAt ?? []), namedAt] });
    if (known !== undefined) return;
    for (const file of filesUnder(dir, TRUST_PACKAGE_DEPTH)) {
      hash(file);
      imported.add(file);
      follow(file);
    }
  };
  const addPackage = (row: PresetRow, insideOnly: boolean): void => {
    const probes = packageProbes(row.name, root);
    for (const p of probes.tried) probed.add(p);
    const found = findPackage(row.name, root);
    if (found === undefined || (insideOnly && !isInside(found.dir, root))) return;
    if (isInside(found.dir, root)) return addWorkspacePackage(row.name, found.dir, row.at);
    // A package outside the workspace (not writable by its programs): its manifest and entry, as named.
    const key = `${row.name}\0${found.dir}`;
    const known = packages.get(key);
    packages.set(key, { name: row.name, dir: found.dir, namedAt: [...(known?.namedAt ?? []), row.at] });
    if (found.manifest) hash(found.manifest);
    if (found.entry) hash(found.entry);
  };
  /** Follows the static imports of every module queued, hashing what they reach (docs/presets.md, "Trust"). */
  const drain = (): void => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      let source: string;
      try {
        source = fs.readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const found = readModuleImports(file, source);
      computed.push(...found.computed);
      for (const specifier of found.specifiers) {
        const target = resolveImport(specifier, file);
        if (target.kind === 'package') {
          const probes = packageProbes(target.name, path.dirname(file));
          for (const p of probes.tried) probed.add(p);
          const dir = probes.found === undefined ? undefined : realOrSelf(probes.found);
          // A bare import that lands inside the workspace is a workspace package; one outside is not its files.
          if (dir !== undefined && isInside(dir, root)) addWorkspacePackage(target.name, dir, file);
          continue;
        }
        for (const p of target.probed) probed.add(p);
        if (target.kind === 'file') {
          hash(target.file);
          if (!scanned.has(target.file)) imported.add(target.file);
          follow(target.file);
        }
      }
    }
  };

  // The user's own `$PTC_HOME/presets` when the workspace is where PTC_HOME lives (working in `~`).
  if (presetDirectories({ ...search, workspace: root }).some((d) => d.origin === 'workspace')) for (const file of filesUnder(presetDir)) hash(file);
  for (const location of listPresets({ ...search, workspace: root })) {
    let rows: readonly PresetRow[];
    try {
      rows = readPresetFile(location.file).rows;
    } catch (error) {
      if (location.origin === 'workspace') presets.push({ file: location.file, invalid: (error as Error).message.split('\n')[0]! });
      continue;
    }
    if (location.origin !== 'workspace') {
      // The user's own and the shipped presets: only their package rows can reach into the workspace.
      for (const row of rows) if (isPackageRow(row)) addPackage(row, true);
      continue;
    }
    presets.push({ file: location.file });
    for (const row of rows) {
      const kind = rowKindOf(SHIPPED_ROWS, row.name);
      if (kind) commands.push(...(kind.hostCommands?.(row) ?? []));
      else if (isModulePath(row.name)) {
        const file = path.resolve(row.baseDir, row.name);
        const missing = !fs.existsSync(file);
        plugins.set(file, missing);
        if (!missing) {
          hash(file);
          follow(realOrSelf(file));
        }
      } else if (isPackageName(row.name)) addPackage(row, false);
    }
  }

  // The project config file: its MCP servers start on the host and its allow rules skip asks.
  const configPath = projectConfigPath(root);
  let configFile: { file: string; rules: string[]; invalid?: string } | undefined;
  if (fs.existsSync(configPath)) {
    hash(configPath);
    try {
      const loaded = readConfigFile(configPath);
      configFile = { file: configPath, rules: (loaded?.rules ?? []).map((r) => `${r.effect} ${ruleText(r)}`) };
      const servers = loaded?.values.mcpServers ?? {};
      commands.push(...mcpRowKind.hostCommands!({ index: 0, name: 'mcp', at: configPath, baseDir: root, config: { mcpServers: servers } }));
    } catch (error) {
      configFile = { file: configPath, rules: [], invalid: (error as Error).message.split('\n')[0]! };
    }
  }

  // Skills: every file of the workspace's skill folders, so a program that writes one asks again (docs/skills.md, "Trust").
  const skills: string[] = [];
  for (const dir of WORKSPACE_SKILL_DIRS) {
    for (const file of filesUnder(path.join(root, dir), TRUST_SKILL_DIR_DEPTH)) {
      hash(file);
      if (path.basename(file) === 'SKILL.md') skills.push(file);
    }
  }

  // Workflows: every file of the folder, so a program (or workflow_save) that writes one asks again (docs/workflows.md, "Trust").
  const workflows: string[] = [];
  for (const file of filesUnder(path.join(root, WORKSPACE_WORKFLOWS_DIR), 1)) {
    hash(file);
    workflows.push(file);
  }

  drain();

  const files = [...hashed.keys()].sort();
  const absent = [...probed].filter((p) => !hashed.has(p)).sort();
  const lines = [
    'ptc-trust-2',
    ...files.map((f) => `file ${f} ${hashed.get(f)}`),
    ...[...plugins].map(([f, m]) => `plugin ${f} ${m ? 'missing' : 'present'}`),
    ...absent.map((p) => `absent ${p}`),
  ];
  for (const p of [...packages.values()].sort((a, b) => a.name.localeCompare(b.name))) lines.push(`package ${p.name} ${p.dir}`);
  const digest = `sha256:${createHash('sha256').update(lines.join('\n')).digest('hex')}`;
  return {
    workspace: root,
    ...(configFile !== undefined ? { configFile } : {}),
    presets,
    skills,
    workflows,
    plugins: [...plugins].map(([file, missing]) => ({ file, missing })),
    packages: [...packages.values()],
    commands,
    files,
    imported: [...imported].filter((f) => !plugins.has(f)).sort(),
    computed,
    probed: absent,
    digest,
    empty: files.length === 0 && plugins.size === 0 && packages.size === 0,
  };
}

/** The list `ptc trust` prints and a terminal prompt shows: paths relative to the workspace where inside it. */
export function describeWorkspaceConfig(config: WorkspaceConfig): string {
  const show = (file: string) => (isInside(file, config.workspace) ? path.relative(config.workspace, file) : file);
  const out = [`Workspace ${config.workspace} would load, on this computer with your rights:`];
  const section = (title: string, items: string[]) => {
    if (items.length === 0) return;
    out.push(`  ${title}:`, ...items.map((item) => `    ${item}`));
  };
  section(
    'preset files (read)',
    config.presets.map((p) => `${show(p.file)}${p.invalid ? `  (invalid: ${p.invalid})` : ''}`),
  );
  if (config.configFile !== undefined) {
    const c = config.configFile;
    section('config file (settings, approval rules, MCP servers)', [
      `${show(c.file)}${c.invalid ? `  (invalid: ${c.invalid})` : ''}`,
      ...c.rules.map((r) => `  rule: ${r}`),
    ]);
  }
  section('skills (their text enters the prompt; their scripts run only in the sandbox)', config.skills.map(show));
  section('workflows (each becomes a tool; its program runs in the sandbox)', config.workflows.map(show));
  section('plugin files (imported: they run on the host)', config.plugins.map((p) => `${show(p.file)}${p.missing ? '  (missing)' : ''}`));
  section(
    'packages (imported from the workspace)',
    config.packages.map((p) => `${p.name}  ${show(p.dir)}  (named at ${p.namedAt.map(show).join(', ')})`),
  );
  section('MCP server commands (started on the host)', config.commands.map((c) => c.replace(config.workspace + path.sep, '')));
  section('modules those import, and the files of workspace packages (imported: they run on the host)', config.imported.map(show));
  section('computed imports (not followed: what they load is the trusted code\'s own choice)', config.computed.map(show));
  const listed = new Set([...(config.configFile ? [config.configFile.file] : []), ...config.skills, ...config.workflows, ...config.presets.map((p) => p.file), ...config.plugins.map((p) => p.file), ...config.imported]);
  section('other files in the digest', config.files.filter((f) => !listed.has(f)).map(show));
  out.push(`  digest ${config.digest}`);
  return out.join('\n');
}

function isPackageRow(row: PresetRow): boolean {
  return rowKindOf(SHIPPED_ROWS, row.name) === undefined && !isModulePath(row.name) && isPackageName(row.name);
}

/** Regular files under `dir`, recursively to `maxDepth`, sorted; symlinked directories are not entered. */
function filesUnder(dir: string, maxDepth = TRUST_PRESET_DIR_DEPTH): string[] {
  const out: string[] = [];
  const walk = (current: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (depth < maxDepth) walk(full, depth + 1);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        out.push(full);
        if (out.length > MAX_TRUST_FILES) return;
      }
    }
  };
  walk(dir, 0);
  return out;
}

function digestOfFile(file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 'unreadable';
  }
  if (!stat.isFile()) return `not-a-file`;
  if (stat.size > MAX_TRUST_FILE_BYTES) {
    throw new ConfigError(`${file} is ${stat.size} bytes, more than ${MAX_TRUST_FILE_BYTES}; workspace configuration that large is not reviewed. Remove it or pass it explicitly.`);
  }
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return 'unreadable';
  }
}

function realPath(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
