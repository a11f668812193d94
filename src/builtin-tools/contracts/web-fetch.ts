// The contract of `web_fetch` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';

export const input = z.strictObject({
  url: z.string().min(1).describe('The http:// or https:// URL to fetch.'),
  raw: z.boolean().optional().describe('Return HTML as its source instead of converting it to markdown. Default false.'),
});

export const output = z.strictObject({
  url: z.string().describe('The URL finally fetched, after redirects.'),
  status: z.int().describe('The HTTP status of the final answer (2xx).'),
  contentType: z.string().describe('The Content-Type header of the answer, or "" when it had none.'),
  content: z.string().describe('The text: converted markdown for HTML (unless raw), else the body as text.'),
  truncated: z.boolean().describe('True when the body or the text was cut at the size limits.'),
});
