// Overview of the workspace: files per extension and the longest source files, computed by the
// program from many tool calls — only the summary comes back.
// Run: npx ptc exec examples/workspace-overview.ts --cwd <dir>

const { files } = await tools.glob({ pattern: '**/*' });

const perExtension: Record<string, number> = {};
for (const file of files) {
  const dot = file.lastIndexOf('.');
  const ext = dot > file.lastIndexOf('/') ? file.slice(dot) : '(none)';
  perExtension[ext] = (perExtension[ext] ?? 0) + 1;
}

// Independent reads may overlap: read is concurrency-safe, so these run in parallel.
const sources = files.filter((f) => /\.(ts|js|mjs|py|go|rs)$/.test(f)).slice(0, 200);
const sizes = await Promise.all(
  sources.map(async (path) => {
    try {
      const r = await tools.read({ path, limit: 1 });
      return { path, lines: r.totalLines };
    } catch (error) {
      if (error instanceof ToolCallError) return { path, lines: -1 };
      throw error;
    }
  }),
);

return {
  files: files.length,
  perExtension,
  longest: sizes.sort((a, b) => b.lines - a.lines).slice(0, 5),
};
