// Large-catalog figures for `npm run bench` (docs/large-catalogs.md): characters of the ptc prompt's
// `tools:sdk` section for the official MCP servers' catalog, with the tool index against every
// declaration. Sizes, not speed: the same in every run.

import { sdkPresentationFor } from '../src/ptc/catalog-index.js';
import { renderSdkInstructions } from '../src/ptc/prompt-sections.js';
import type { ToolSchema } from '../src/tools/types.js';
import { largeCatalog, realCatalog } from '../test/fixtures/mcp-catalog.js';

const chars = (n: number) => `${n.toLocaleString('en-US')} chars`;

function rows(label: string, catalog: readonly ToolSchema[]): string[][] {
  const declared = renderSdkInstructions(catalog, undefined, { presentation: 'declarations' }).length;
  const indexed = renderSdkInstructions(catalog, undefined, { presentation: 'index' }).length;
  const chosen = sdkPresentationFor(catalog);
  return [
    [`ptc prompt section, ${label}, every declaration`, chars(declared), '1.00 (baseline for the row below)'],
    [`ptc prompt section, ${label}, tool index + \`sdk\` (shown: ${chosen})`, chars(indexed), (indexed / declared).toFixed(2)],
  ];
}

/** The large-catalog rows: 156 tools (three servers replicated under 13 prefixes) and the 36 real ones. */
export function catalogRows(): string[][] {
  return [...rows('large catalog, 156 MCP tools', largeCatalog()), ...rows('36 tools of the memory, filesystem and everything servers', realCatalog())];
}
