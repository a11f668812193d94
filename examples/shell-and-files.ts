// Mixes the shell and the file tools: count the top-level entries with ls, then read the first line of each
// Markdown file. bash and write are exclusive (they run alone); read calls overlap.
// Run: npx ptc exec examples/shell-and-files.ts

const ls = await tools.bash({ command: 'ls -1' });
console.log(`exit ${ls.exitCode}; ${ls.stdout.split('\n').filter(Boolean).length} entries at the top level`);

const { files } = await tools.glob({ pattern: '*.md' });
const titles = await Promise.all(
  files.map(async (path) => ({ path, title: (await tools.read({ path, limit: 1 })).content })),
);
return titles;
