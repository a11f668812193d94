// The layers of src/ (the table of docs/architecture.md, "Layers") checked against an import graph:
// no import from a lower layer into a higher one, no cycle between the folders of one layer, and no
// file outside the table. test/structure/layers.test.ts runs it on src/ and on small made-up graphs.

import path from 'node:path';
import { cyclesOf, type ImportGraph } from './import-graph.js';

/** One row of the table: its name and the folders (`src/x/`) and files (`src/x.ts`) it holds. */
export interface Layer {
  readonly name: string;
  readonly members: readonly string[];
}

/** An import allowed for now although it breaks a rule; `reason` says why and who removes it. */
export interface AllowedImport {
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

export interface LayerReport {
  /** Files no row of the table holds, as `unplaced: ...` lines. */
  readonly unplaced: string[];
  /** Imports from a lower layer into a higher one. */
  readonly upward: string[];
  /** Cycles between members of one layer, each with the imports that close it. */
  readonly cycles: string[];
  /** Allowlist entries no import needs any more (remove them). */
  readonly unusedAllowed: string[];
}

/** The rows of the table under "## Layers" in docs/architecture.md, bottom layer first. */
export function layersOfDoc(markdown: string): Layer[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Layers'));
  if (section === undefined) throw new Error('docs/architecture.md has no "## Layers" section');
  const layers: Layer[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 4 || cells[1] === 'layer' || /^-+$/.test(cells[1]!)) continue;
    const members = [...cells[2]!.matchAll(/`(src\/[^`\s]+)`/g)].map((match) => match[1]!);
    layers.push({ name: cells[1]!, members });
  }
  return layers;
}

/** The member of the table that holds `file` (repo-relative, `/`-separated): the longest folder or the file itself. */
function memberOf(file: string, layers: readonly Layer[]): { member: string; layer: number } | undefined {
  let best: { member: string; layer: number } | undefined;
  layers.forEach((layer, index) => {
    for (const member of layer.members) {
      const holds = member.endsWith('/') ? file.startsWith(member) : file === member;
      if (holds && (best === undefined || member.length > best.member.length)) best = { member, layer: index };
    }
  });
  return best;
}

/** The folder to add to the table for an unplaced file: its top folder under src/, or the file itself. */
function placeFor(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
}

/**
 * Checks `graph` (absolute paths) against `layers`; `root` is the directory the members are relative
 * to (the repository). An import listed in `allowed` (members or files, repo-relative) is not reported.
 */
export function checkLayers(graph: ImportGraph, layers: readonly Layer[], root: string, allowed: readonly AllowedImport[] = []): LayerReport {
  const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const unplaced = new Set<string>();
  const upward: string[] = [];
  const used = new Set<AllowedImport>();
  const isAllowed = (from: string, to: string, fromMember: string, toMember: string): boolean => {
    const entry = allowed.find((a) => (a.from === from || a.from === fromMember) && (a.to === to || a.to === toMember));
    if (entry !== undefined) used.add(entry);
    return entry !== undefined;
  };
  // Member -> members of the same layer it imports, and which file imports stand behind each edge.
  const sameLayer = new Map<string, Set<string>>();
  const witnesses = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = rel(file);
    const source = memberOf(from, layers);
    if (source === undefined) {
      unplaced.add(placeFor(from));
      continue;
    }
    if (!sameLayer.has(source.member)) sameLayer.set(source.member, new Set());
    for (const target of targets) {
      const to = rel(target);
      const dest = memberOf(to, layers);
      if (dest === undefined || dest.member === source.member) continue;
      if (dest.layer > source.layer) {
        if (!isAllowed(from, to, source.member, dest.member)) {
          upward.push(`${from} (${layers[source.layer]!.name}) imports ${to} (${layers[dest.layer]!.name})`);
        }
      } else if (dest.layer === source.layer) {
        const key = `${source.member} -> ${dest.member}`;
        if (isAllowed(from, to, source.member, dest.member)) continue;
        sameLayer.get(source.member)!.add(dest.member);
        witnesses.set(key, [...(witnesses.get(key) ?? []), `${from} imports ${to}`]);
      }
    }
  }
  const memberGraph = new Map([...sameLayer].map(([member, targets]) => [member, [...targets]]));
  const cycles = cyclesOf(memberGraph).map((members) => {
    const inCycle = new Set(members);
    const edges = [...witnesses].filter(([key]) => {
      const [a, b] = key.split(' -> ');
      return inCycle.has(a!) && inCycle.has(b!);
    });
    return `${members.join(' <-> ')}: ${edges.map(([, files]) => files.join(', ')).join('; ')}`;
  });
  const unusedAllowed = allowed.filter((entry) => !used.has(entry)).map((entry) => `${entry.from} -> ${entry.to}`);
  return {
    unplaced: [...unplaced].sort().map((place) => `unplaced: ${place} has no layer; add it to the table in docs/architecture.md ("Layers")`),
    upward: upward.sort(),
    cycles,
    unusedAllowed,
  };
}
