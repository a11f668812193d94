// Find TODO and FIXME comments across the workspace and return a short summary per file.
// Run: npx ptc exec examples/find-todos.ts            (workspace = current directory)
//      npx ptc exec examples/find-todos.ts --json     (the full result object)

const { matches, truncated } = await tools.grep({ pattern: '\\b(TODO|FIXME)\\b' });

const byFile = new Map<string, string[]>();
for (const m of matches) {
  const notes = byFile.get(m.path) ?? [];
  notes.push(`${m.line}: ${m.text.trim().slice(0, 100)}`);
  byFile.set(m.path, notes);
}

console.log(`${matches.length} TODO/FIXME lines in ${byFile.size} files${truncated ? ' (capped)' : ''}`);
return [...byFile.entries()]
  .sort((a, b) => b[1].length - a[1].length)
  .slice(0, 10)
  .map(([path, notes]) => ({ path, count: notes.length, first: notes[0] }));
