// Loading a preset by name under the trust rule (docs/presets.md, "Trust"): a workspace preset loads
// only from a trusted workspace. Untrusted, a name that also exists in `$PTC_HOME/presets` or among
// the shipped presets loads that one, with a one-line note saying which file was ignored and how to
// trust it; a name only the workspace has is CONFIG naming the file and `ptc trust <dir>`. A path the
// caller typed loads as before: it is the caller's own choice.

import { ConfigError } from '../errors.js';
import { readPresetFile } from '../presets/preset-file.js';
import type { LoadedPreset } from '../presets/presets.js';
import { findNamedPreset, listPresets, resolvePreset, type PresetLocation, type PresetSearch } from '../presets/resolve-preset.js';
import { checkWorkspaceTrust, trustCommand, untrustedReason, type WorkspaceTrust } from './workspace-trust.js';

export interface TrustOptions {
  /** The caller trusts the workspace (a library user's explicit choice); default: the trust store decides. */
  readonly trustWorkspace?: boolean;
  /** Where the note about an ignored workspace preset goes; default stderr. */
  readonly onNote?: (line: string) => void;
}

export interface TrustedPreset {
  readonly preset: LoadedPreset;
  /** Whether the workspace is trusted (computed on first use: most runs never need it). */
  readonly workspaceTrusted: () => boolean;
}

/** A lazily computed trust answer for one workspace. */
export function trustOf(search: PresetSearch, options: TrustOptions): { trusted(): boolean; check(): WorkspaceTrust | undefined } {
  let trust: WorkspaceTrust | undefined;
  const check = () => {
    if (options.trustWorkspace === true) return undefined;
    trust ??= checkWorkspaceTrust(search.workspace, search);
    return trust;
  };
  const trusted = () => {
    if (options.trustWorkspace === true) return true;
    try {
      return check()?.state === 'trusted';
    } catch {
      // Configuration that cannot be collected (too many or too large files) is not trusted.
      return false;
    }
  };
  return { trusted, check };
}

/** Why the workspace's preset does not load, and the command that fixes it. */
function refusal(trust: { check(): WorkspaceTrust | undefined }, workspace: string): { reason: string; fix: string } {
  try {
    const checked = trust.check()!;
    return { reason: untrustedReason(checked), fix: trustCommand(checked.config.workspace) };
  } catch (error) {
    return { reason: `the configuration of workspace ${workspace} cannot be reviewed (${(error as Error).message.split('\n')[0]})`, fix: trustCommand(workspace) };
  }
}

/** Resolves and reads preset `value` (a name or a path) under the trust rule. */
export function loadPresetWithTrust(value: string, search: PresetSearch, options: TrustOptions = {}): TrustedPreset {
  const trust = trustOf(search, options);
  const location = resolvePreset(value, search);
  if (location.origin !== 'workspace' || trust.trusted()) return { preset: read(location), workspaceTrusted: trust.trusted };
  const { reason, fix } = refusal(trust, search.workspace);
  const fallback = findNamedPreset(value, search, ['PTC_HOME', 'shipped']);
  if (fallback === undefined) {
    throw new ConfigError(
      `Preset ${JSON.stringify(value)} is ${location.file}, and ${reason}: its plugin files, packages and MCP commands would run on this computer. ` +
        `Review what it loads and trust it with \`${fix}\` (it lists every file and command first).`,
    );
  }
  const note = options.onNote ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const which = fallback.origin === 'shipped' ? 'shipped' : '$PTC_HOME';
  note(`ptc: note: ignored ${location.file} (${reason}); using the ${which} preset ${value}. To use the workspace's: ${fix}`);
  return { preset: read(fallback), workspaceTrusted: trust.trusted };
}

/**
 * Resolves `--preset <name|path>` (docs/presets.md, "Resolution") and reads the file, under the trust
 * rule: the library's `loadPreset`. A name an untrusted workspace shadows reads the `$PTC_HOME` or
 * shipped preset (with the note), so passing the result to createHarness runs nothing of the workspace's.
 */
export function loadPreset(value: string, search: PresetSearch & TrustOptions): LoadedPreset {
  const { trustWorkspace, onNote, ...where } = search;
  return loadPresetWithTrust(value, where, { ...(trustWorkspace !== undefined ? { trustWorkspace } : {}), ...(onNote !== undefined ? { onNote } : {}) }).preset;
}

/** One row of `ptc presets list` under the trust rule. */
export interface ListedPreset extends PresetLocation {
  /** Another preset of the same name is used instead. */
  readonly shadowed: boolean;
  /** A workspace preset of an untrusted workspace: it does not load by name. */
  readonly untrusted: boolean;
}

/** Every preset by name, in search order; the one used for a name is the first not shadowed. */
export function listPresetsWithTrust(search: PresetSearch, options: TrustOptions = {}): { presets: ListedPreset[]; trust: WorkspaceTrust | undefined } {
  const all = listPresets(search);
  const trust = trustOf(search, options);
  const hasWorkspace = all.some((p) => p.origin === 'workspace');
  let trusted = !hasWorkspace;
  let checked: WorkspaceTrust | undefined;
  if (hasWorkspace) {
    try {
      trusted = trust.trusted();
      checked = trust.check();
    } catch {
      // A workspace whose configuration cannot be collected (too many or too large files) is not trusted.
      trusted = false;
    }
  }
  const used = new Set<string>();
  const presets = all.map((p) => {
    const untrusted = p.origin === 'workspace' && !trusted;
    const shadowed = used.has(p.name);
    if (!untrusted) used.add(p.name);
    return { name: p.name, file: p.file, origin: p.origin, shadowed, untrusted };
  });
  return { presets, trust: checked };
}

function read(location: PresetLocation): LoadedPreset {
  return { ...readPresetFile(location.file), name: location.name, origin: location.origin };
}
