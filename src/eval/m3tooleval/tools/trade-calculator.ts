// trade_calculator: currency conversion, tariffs, final values, a calculator, min/max
// (docs/eval.md, "Tools"). Also the web_browsing domain's calculator.

import { z } from 'zod';
import { add, asNum, extreme, mul, trueDiv } from '../py-arith.js';
import { evaluateExpression } from '../python-expression.js';
import { py, pyNumber, pyStr } from '../py-value.js';
import { pyTool } from '../tool-kit.js';

export const CALCULATOR_DESCRIPTION =
  'Evaluates the given expression and returns the result. Accepts a calculation expression as input. For example, "2 + (3 * 4)" will return 14.';

/** The calculator of both domains: a number, or the original's failure text as the value. */
export function calculatorTool() {
  return pyTool({
    name: 'calculator',
    description: CALCULATOR_DESCRIPTION,
    input: z.object({ expression: z.string() }),
    output: z.union([z.number(), z.string()]),
    examples: [{ expression: '2 + (3 * 4)' }],
    positional: (a) => [py.str(a.expression)],
    run: (a) => {
      try {
        const value = evaluateExpression(a.expression);
        // A tuple or list result reaches a program as its Python text (JSON would lose the kind).
        return value.t === 'int' || value.t === 'float' ? value : py.str(pyStr(value));
      } catch {
        return py.str(`Failed to evaluate expression: ${a.expression}`);
      }
    },
  });
}

export function tradeCalculatorTools() {
  const floats = z.object({ args: z.array(z.number()).describe('The values (*args).') });
  return [
    pyTool({
      name: 'convert_currency',
      description: 'Converts the commodity price to local currency. Arguments: base_price (float), conversion_rate (float)',
      input: z.object({ base_price: z.number(), conversion_rate: z.number() }),
      output: z.number(),
      examples: [{ base_price: 100, conversion_rate: 1.5 }],
      positional: (a) => [pyNumber(a.base_price), pyNumber(a.conversion_rate)],
      run: (a) => mul(asNum(pyNumber(a.base_price), '*'), asNum(pyNumber(a.conversion_rate), '*')),
    }),
    pyTool({
      name: 'calculate_tariff',
      description: 'Calculates the trade tariff based on the converted price. Arguments: price (float), tariff_rate (float, in %)',
      input: z.object({ price: z.number(), tariff_rate: z.number() }),
      output: z.number(),
      positional: (a) => [pyNumber(a.price), pyNumber(a.tariff_rate)],
      run: (a) => trueDiv(mul(asNum(pyNumber(a.price), '*'), asNum(pyNumber(a.tariff_rate), '*')), { t: 'int', v: 100n }),
    }),
    pyTool({
      name: 'estimate_final_value',
      description: 'Estimates the final trade value including the tariff. Arguments: price (float), tariff (float)',
      input: z.object({ price: z.number(), tariff: z.number() }),
      output: z.number(),
      positional: (a) => [pyNumber(a.price), pyNumber(a.tariff)],
      run: (a) => add(asNum(pyNumber(a.price), '+'), asNum(pyNumber(a.tariff), '+')),
    }),
    calculatorTool(),
    pyTool({
      name: 'find_minimum',
      description: 'Finds the minimum value among the given arguments. Accepts variable number of float arguments.',
      input: floats,
      output: z.number(),
      positional: (a) => a.args.map(pyNumber),
      run: (a) => extreme(a.args.map(pyNumber), 'min'),
    }),
    pyTool({
      name: 'find_maximum',
      description: 'Finds the maximum value among the given arguments. Accepts variable number of float arguments.',
      input: floats,
      output: z.number(),
      positional: (a) => a.args.map(pyNumber),
      run: (a) => extreme(a.args.map(pyNumber), 'max'),
    }),
  ];
}
