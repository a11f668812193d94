// A plugin file: one tool, typed from its zod schema. Loaded by ./preset.yml (or `--plugin`).
// It runs on the host with your rights, like any config file of yours.
import { defineTool, z, type Context } from 'ptc-harness';

export const name = 'units';

/** The row's `config`, validated when the preset assembles. */
export const config = z.object({ precision: z.number().int().min(0).max(10).default(2) });

const FACTORS = { m: 1, km: 1000, mi: 1609.344, ft: 0.3048 } as const;

export function apply(ctx: Context, options: z.infer<typeof config>): void {
  ctx.tools.register(
    defineTool({
      name: 'convert_length',
      description: 'Convert a length between metres (m), kilometres (km), miles (mi) and feet (ft).',
      input: z.object({
        value: z.number().describe('The length to convert.'),
        from: z.enum(['m', 'km', 'mi', 'ft']),
        to: z.enum(['m', 'km', 'mi', 'ft']).default('m').describe('Target unit; default m.'),
      }),
      output: z.object({ value: z.number(), unit: z.string() }),
      examples: [{ value: 3, from: 'mi', to: 'km' }],
      isConcurrencySafe: true,
      execute: ({ value, from, to }) => ({
        value: Number(((value * FACTORS[from]) / FACTORS[to]).toFixed(options.precision)),
        unit: to,
      }),
    }),
  );
}
