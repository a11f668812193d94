// The keys of a ptc config file (docs/config.md, "Keys"), one schema for the user and the project
// file. Values are checked here once, at load time; which of them a command uses is
// effective-config.ts's business.

import { z } from 'zod';
import { mcpConfigSchema } from '../mcp/client/config.js';
import { WEB_SEARCH_BACKENDS } from '../builtin-tools/web-search/backend.js';
import { MIN_CONTEXT_WINDOW_TOKENS } from './limits.js';

export const PROVIDERS = ['deepseek', 'openai', 'anthropic', 'openai-compatible'] as const;
export const APPROVE_VALUES = ['never', 'writes', 'all'] as const;

/** An approval rule entry: `"bash: npm test*"`, or the map YAML makes of it unquoted (`- bash: npm test*`). */
const ruleEntry = z.union([z.string(), z.record(z.string(), z.union([z.string(), z.array(z.string())]))], {
  error: 'a rule is a string "tool" or "tool: pattern", e.g. "bash: npm test*"',
});

const permissionsSchema = z.strictObject({
  allow: z.array(ruleEntry, { error: 'set it to a list of rules, e.g. ["bash: npm test*", "write: src/**"]' }).optional(),
  deny: z.array(ruleEntry, { error: 'set it to a list of rules, e.g. ["bash: rm *"]' }).optional(),
});

/** `webSearch`: the backend of the web_search tool (docs/web-tools.md, "Configuration"). */
export const webSearchSchema = z.strictObject({
  backend: z.enum(WEB_SEARCH_BACKENDS, { error: `set it to one of ${WEB_SEARCH_BACKENDS.join(', ')}` }),
  url: z
    .string({ error: 'set it to the service URL, e.g. http://127.0.0.1:8888 for SearXNG' })
    .trim()
    .url('set it to an absolute http(s) URL, e.g. http://127.0.0.1:8888')
    .regex(/^https?:\/\//i, 'set it to an http or https URL')
    .optional(),
  apiKeyEnv: z
    .string({ error: 'set it to the name of the environment variable that holds the key, e.g. BRAVE_API_KEY' })
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'set it to the name of the environment variable that holds the key (letters, digits, _), not to the key itself')
    .optional(),
});

/** Which skills load (docs/skills.md, "Configuration"); the project file's values override the user's. */
export const skillsConfigSchema = z.strictObject({
  dirs: z.array(z.string().min(1), { error: 'set it to a list of folders of skill folders, e.g. [~/my-skills]' }).optional(),
  claude: z.boolean({ error: 'set it to true to also read .claude/skills (home and workspace)' }).optional(),
  agents: z.boolean({ error: 'set it to true to also read .agents/skills (home and workspace)' }).optional(),
  enabled: z.array(z.string().min(1), { error: 'set it to a list of skill names, e.g. [pdf-forms]' }).optional(),
  disabled: z.array(z.string().min(1), { error: 'set it to a list of skill names, e.g. [pdf-forms]' }).optional(),
});

export const configSchema = z.strictObject({
  provider: z.enum(PROVIDERS, { error: `set it to one of ${PROVIDERS.join(', ')}` }).optional(),
  model: z.string({ error: 'set it to a model id, e.g. deepseek-chat or deepseek:deepseek-chat' }).trim().min(1).optional(),
  baseUrl: z.string({ error: 'set it to the server URL, e.g. http://127.0.0.1:11434/v1' }).trim().min(1).optional(),
  apiKeyEnv: z
    .string({ error: 'set it to the name of the environment variable that holds the key' })
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'set it to the name of the environment variable that holds the key (letters, digits, _), not to the key itself')
    .optional(),
  preset: z.string({ error: 'set it to a preset name (ptc presets list) or a path' }).trim().min(1).optional(),
  approve: z.enum(APPROVE_VALUES, { error: `set it to one of ${APPROVE_VALUES.join(', ')}` }).optional(),
  maxSteps: z.number({ error: 'set it to a positive integer' }).int('set it to a positive integer').positive('set it to a positive integer').optional(),
  contextWindow: z
    .number({ error: 'set it to the model\'s context window in tokens, e.g. 32768' })
    .int('set it to a whole number of tokens, e.g. 32768')
    .min(MIN_CONTEXT_WINDOW_TOKENS, `set it to at least ${MIN_CONTEXT_WINDOW_TOKENS} tokens`)
    .optional(),
  compactThreshold: z
    .number({ error: 'set it to a fraction of the window, e.g. 0.8' })
    .gt(0, 'set it to a fraction of the window above 0, e.g. 0.8')
    .max(1, 'set it to a fraction of the window at most 1, e.g. 0.8')
    .optional(),
  protect: z.array(z.string().min(1), { error: 'set it to a list of paths, e.g. [secrets, .env]' }).optional(),
  mcpServers: mcpConfigSchema.shape.mcpServers.optional(),
  permissions: permissionsSchema.optional(),
  webSearch: webSearchSchema.optional(),
  watchPlugins: z.boolean({ error: 'set it to true or false' }).optional(),
  skills: skillsConfigSchema.optional(),
});

export type ConfigValues = z.infer<typeof configSchema>;

/** The top-level keys, for "did you mean". */
export const CONFIG_KEYS: readonly string[] = Object.keys(configSchema.shape);
export const PERMISSION_KEYS: readonly string[] = Object.keys(permissionsSchema.shape);
export const WEB_SEARCH_KEYS: readonly string[] = Object.keys(webSearchSchema.shape);
