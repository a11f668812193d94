// Plugin-file versions across harnesses (docs/plugin-reload.md, "ptc ui"): a front-end that builds a
// fresh harness for every turn keeps one of these, so each turn imports the version of each plugin
// file it should run. Node keeps every module it imported by URL, so the version in use can always be
// imported again without reading the disk; a changed file's new version is imported only when the
// reload rule allows it and it loads, and it becomes the version in use only once the harness built
// with it assembled (`settle(true)`); otherwise the next harness gets the old one again.

import path from 'node:path';
import { describeRow } from './assemble.js';
import { pluginGraph } from './plugin-graph.js';
import { firstLine, loadPluginFile, type LoadedPluginModule } from './plugin-module.js';
import type { PluginReload, ReloadReport, ReloadRule } from './plugin-reload.js';
import type { PresetRow } from './preset-file.js';

export interface PluginVersions {
  /** Imports the version of `row`'s plugin file that this harness should run. */
  load(row: PresetRow, rule: ReloadRule): Promise<LoadedPluginModule>;
  /**
   * After the harness was built (`ok`) or failed to assemble: new versions become current, or are
   * dropped (reported as kept, with `error`). Returns what changed since the last settle.
   */
  settle(ok: boolean, error?: unknown): ReloadReport;
  /** Whether the harness being built imports a new version (a failed build is worth one retry with the old ones). */
  hasPending(): boolean;
}

export function createPluginVersions(): PluginVersions {
  const current = new Map<string, string>();
  const pending = new Map<string, { digest: string; report: PluginReload }>();
  // A version reported as kept is not reported (or imported) again each turn.
  const refused = new Map<string, string>();
  // A refusal is checked again every turn but told once per version.
  const told = new Map<string, string>();
  let reports: PluginReload[] = [];
  const kept = (file: string, row: PresetRow, plugin: string, message: string): PluginReload => ({
    file,
    row: describeRow(row),
    status: 'kept',
    plugin,
    error: { code: 'CONFIG', message: `${describeRow(row)}: ${message}; the loaded version keeps running` },
  });

  return {
    async load(row, rule) {
      const file = path.resolve(row.baseDir, row.name);
      const graph = pluginGraph(file);
      const inUse = current.get(file);
      if (inUse === undefined) {
        current.set(file, graph.digest);
        return loadPluginFile(row.name, row.baseDir, graph.digest);
      }
      if (inUse === graph.digest || refused.get(file) === graph.digest) return loadPluginFile(row.name, row.baseDir, inUse);
      const old = await loadPluginFile(row.name, row.baseDir, inUse);
      let refusal: string | undefined;
      try {
        refusal = rule(row, graph);
      } catch (error) {
        refusal = `cannot check whether ${file} may load: ${firstLine(error)}`;
      }
      if (refusal !== undefined) {
        // Checked again next turn: trust may be granted meanwhile.
        if (told.get(file) !== graph.digest) reports.push(kept(file, row, old.plugin.name, refusal));
        told.set(file, graph.digest);
        return old;
      }
      try {
        const next = await loadPluginFile(row.name, row.baseDir, graph.digest);
        pending.set(file, { digest: graph.digest, report: { file, row: describeRow(row), status: 'reloaded', plugin: next.plugin.name } });
        return next;
      } catch (error) {
        refused.set(file, graph.digest);
        reports.push(kept(file, row, old.plugin.name, `the edited file does not load: ${firstLine(error)}`));
        return old;
      }
    },
    settle(ok, error) {
      for (const [file, { digest, report }] of pending) {
        if (ok) {
          current.set(file, digest);
          refused.delete(file);
          reports.push(report);
        } else {
          refused.set(file, digest);
          reports.push({ ...report, status: 'kept', error: { code: 'CONFIG', message: `${report.row}: the edited plugin did not assemble: ${firstLine(error)}; the loaded version keeps running` } });
        }
      }
      pending.clear();
      const changes = reports;
      reports = [];
      return { changes };
    },
    hasPending: () => pending.size > 0,
  };
}
