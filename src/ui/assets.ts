// The files of the web client (docs/ui.md, "Stack"): our own ES modules and stylesheet from
// src/ui/client/, and the pinned libraries served from node_modules as the packages ship them.
// No build step: the page's import map names every module with the launch token in its URL, so a
// module's imports (`import ... from 'preact'`, `./cards.js`) carry the token too.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { TOKEN_QUERY } from './security.js';

/** src/ui/client/ at the package root: two levels above this module in src/ui and in dist/ui alike. */
export const CLIENT_DIR = fileURLToPath(new URL('../../src/ui/client/', import.meta.url));

export interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
}

interface VendorFile {
  /** The bare specifier the client imports, or undefined for a stylesheet. */
  readonly specifier?: string;
  readonly pkg: string;
  /** The file inside the package. */
  readonly file: string;
  /** A CommonJS file without `require` calls, served as an ES module whose default export is `module.exports`. */
  readonly commonJs?: boolean;
  /** A UMD bundle, served as an ES module with these named exports of its CommonJS `exports`. */
  readonly umdExports?: readonly string[];
}

/** Served at `/vendor/<key>`. Paths are files these exact (pinned) versions ship. */
const VENDOR: Record<string, VendorFile> = {
  'preact.mjs': { specifier: 'preact', pkg: 'preact', file: 'dist/preact.mjs' },
  'preact-hooks.mjs': { specifier: 'preact/hooks', pkg: 'preact', file: 'hooks/dist/hooks.mjs' },
  'htm.mjs': { specifier: 'htm', pkg: 'htm', file: 'dist/htm.module.js' },
  // highlight.js ships its core as CommonJS only (its es/core.js re-imports that file); it has no requires.
  'hljs-core.mjs': { specifier: 'highlight.js/core', pkg: 'highlight.js', file: 'lib/core.js', commonJs: true },
  'hljs-typescript.mjs': { specifier: 'highlight.js/typescript', pkg: 'highlight.js', file: 'es/languages/typescript.js' },
  'hljs-github.css': { pkg: 'highlight.js', file: 'styles/github.css' },
  // `diff` ships its ES build as many files; its single-file build is UMD.
  'diff.mjs': { specifier: 'diff', pkg: 'diff', file: 'dist/diff.js', umdExports: ['diffLines'] },
};

const require = createRequire(import.meta.url);

/** The installed package's folder: up from its entry file to the package.json naming it (not every package exports `./package.json`). */
function packageDir(pkg: string): string {
  let dir = path.dirname(require.resolve(pkg));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === pkg) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the folder of the package ${pkg}; run npm ci.`);
    dir = parent;
  }
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Loads every asset once; a missing file is an error at start, not a blank page later. */
export class UiAssets {
  private readonly files = new Map<string, Asset>();
  private readonly modules: string[] = [];

  constructor() {
    for (const [key, vendor] of Object.entries(VENDOR)) {
      const file = path.join(packageDir(vendor.pkg), vendor.file);
      let body = fs.readFileSync(file);
      if (vendor.commonJs) {
        body = Buffer.concat([Buffer.from('const module = { exports: {} };\n'), body, Buffer.from('\nexport default module.exports;\n')]);
      }
      if (vendor.umdExports) {
        // The UMD wrapper takes its CommonJS branch when `exports` and `module` exist.
        const head = 'const module = { exports: {} };\nconst exports = module.exports;\n';
        body = Buffer.concat([Buffer.from(head), body, Buffer.from(`\nexport const { ${vendor.umdExports.join(', ')} } = module.exports;\n`)]);
      }
      this.files.set(`/vendor/${key}`, { contentType: TYPES[path.extname(key)]!, body });
    }
    for (const entry of fs.readdirSync(CLIENT_DIR).sort()) {
      const type = TYPES[path.extname(entry)];
      if (type === undefined || entry.endsWith('.test.ts')) continue;
      this.files.set(`/app/${entry}`, { contentType: type, body: fs.readFileSync(path.join(CLIENT_DIR, entry)) });
      if (entry.endsWith('.js')) this.modules.push(`/app/${entry}`);
    }
  }

  get(pathname: string): Asset | undefined {
    return this.files.get(pathname);
  }

  /** The page: the import map (every module URL with the token), the stylesheets, the entry module. */
  page(token: string): Asset {
    const withToken = (url: string) => `${url}?${TOKEN_QUERY}=${encodeURIComponent(token)}`;
    const imports: Record<string, string> = {};
    for (const [key, vendor] of Object.entries(VENDOR)) if (vendor.specifier) imports[vendor.specifier] = withToken(`/vendor/${key}`);
    // Relative imports between our modules resolve to these URLs (without a query): map them to ones with the token.
    for (const url of this.modules) imports[url] = withToken(url);
    // `<` escaped so the JSON cannot close the script element.
    const importMap = JSON.stringify({ imports }, null, 1).replace(/</g, '\\u003c');
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>ptc ui</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${withToken('/vendor/hljs-github.css')}">
<link rel="stylesheet" href="${withToken('/app/style.css')}">
<script type="importmap">${importMap}</script>
</head>
<body>
<div id="app"></div>
<script type="module" src="${withToken('/app/main.js')}"></script>
</body>
</html>
`;
    return { contentType: 'text/html; charset=utf-8', body: Buffer.from(html) };
  }
}
