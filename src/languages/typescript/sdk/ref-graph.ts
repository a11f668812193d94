// The direct references between the named types of one schema document (the root `#` and each
// `$defs`/`definitions` entry), kept to refuse a circular alias: a type alias may refer to itself
// only through an object member, array or tuple element, so a chain of direct references back to
// itself, or longer than MAX_DIRECT_REF_CHAIN, is never emitted (schema-renderer.ts).

import { MAX_DIRECT_REF_CHAIN } from '../../../limits.js';

export class DirectRefGraph {
  /** Every edge is checked before it is added, so both maps stay acyclic. */
  private readonly directEdges = new Map<string, Set<string>>();
  private readonly reverseEdges = new Map<string, Set<string>>();

  /**
   * Records that `owner`'s body refers directly to `node` and returns true, or returns false (and
   * records nothing) when that would close a cycle or make a chain longer than MAX_DIRECT_REF_CHAIN.
   */
  add(owner: string, node: string): boolean {
    if (owner === node || this.reaches(node, owner)) return false;
    const chain = longestPath(this.reverseEdges, owner) + 1 + longestPath(this.directEdges, node);
    if (chain > MAX_DIRECT_REF_CHAIN) return false;
    addEdge(this.directEdges, owner, node);
    addEdge(this.reverseEdges, node, owner);
    return true;
  }

  private reaches(from: string, to: string): boolean {
    const seen = new Set<string>();
    const stack = [from];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node === to) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      for (const next of this.directEdges.get(node) ?? []) stack.push(next);
    }
    return false;
  }}

function addEdge(graph: Map<string, Set<string>>, from: string, to: string): void {
  let edges = graph.get(from);
  if (!edges) graph.set(from, (edges = new Set()));
  edges.add(to);
}

/** Edges on the longest path from `start` in an acyclic graph whose paths are at most MAX_DIRECT_REF_CHAIN long. */
function longestPath(graph: ReadonlyMap<string, ReadonlySet<string>>, start: string): number {
  const memo = new Map<string, number>();
  const visit = (node: string): number => {
    let best = memo.get(node);
    if (best !== undefined) return best;
    best = 0;
    for (const next of graph.get(node) ?? []) best = Math.max(best, 1 + visit(next));
    memo.set(node, best);
    return best;
  };
  return visit(start);
}
