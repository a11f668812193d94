// A 64-bit FNV-1a digest of a string, as 16 hex digits: for names that only spread or separate
// things (cache entry files, exec server directories), where a collision costs a miss, never a
// wrong answer. No node:crypto on the paths that use it: loading that module costs more than the
// rest of a quick answer (docs/benchmarks.md, "CLI start-up").

/** Two 32-bit FNV-1a passes with different seeds, concatenated. */
export function fnv1a64(text: string): string {
  return `${fnv1a32(text, 0x811c9dc5)}${fnv1a32(text, 0x01000193)}`;
}

function fnv1a32(text: string, seed: number): string {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
