// travel_itinerary_planning: flights, hotels, budgets, and Python's max/min/sum builtins as tools
// (docs/eval.md, "Tools"). The tables are the benchmark's data; locations are stored quoted ('"A"')
// as in the original, which strips the quotes only when comparing.

import { z } from 'zod';
import { add, asNum, extreme, mul } from '../py-arith.js';
import { py, PyError, pyNumber, type PyValue } from '../py-value.js';
import { pyTool } from '../tool-kit.js';

const LOCATIONS = ['"A"', '"B"', '"C"', '"D"', '"E"', '"F"'] as const;
const SUPPORTED = new Set<string>([...LOCATIONS, ...LOCATIONS.map((l) => l.replaceAll('"', ''))]);

/** [from, to, date, price]: the original's flight table, in its order. */
const FLIGHTS: readonly (readonly [string, string, string, number])[] = [
  ['E', 'A', '2023-12-25', 450], ['E', 'B', '2023-11-10', 350], ['E', 'B', '2023-11-10', 165],
  ['E', 'B', '2023-12-15', 360], ['B', 'E', '2023-12-08', 470], ['B', 'E', '2023-12-08', 946],
  ['E', 'C', '2023-10-05', 600], ['E', 'C', '2023-12-01', 580], ['E', 'D', '2023-08-15', 400],
  ['B', 'C', '2023-11-13', 300], ['A', 'C', '2023-08-20', 250], ['A', 'D', '2023-12-28', 250],
  ['A', 'D', '2023-12-29', 410], ['A', 'B', '2023-12-29', 460], ['D', 'C', '2024-01-02', 380],
  ['D', 'A', '2023-08-18', 490], ['D', 'A', '2023-08-18', 560], ['C', 'B', '2024-01-05', 300],
  ['C', 'B', '2023-12-03', 900], ['C', 'B', '2023-12-03', 450], ['C', 'D', '2023-12-03', 450],
  ['B', 'D', '2023-12-06', 250], ['B', 'D', '2023-12-06', 700], ['D', 'B', '2023-12-06', 490],
  ['D', 'B', '2023-12-06', 746], ['B', 'D', '2024-01-01', 490], ['B', 'D', '2024-01-01', 546],
  ['B', 'E', '2024-01-07', 320], ['E', 'A', '2024-01-10', 360],
];

/** [location, preferences, price_per_night, rating]: the original's hotel table, in its order. */
const HOTELS: readonly (readonly [string, readonly string[], number, number])[] = [
  ['A', ['wifi', 'pool'], 120, 4], ['A', ['wifi', 'pool'], 50, 3], ['B', ['wifi', 'gym'], 150, 4],
  ['B', ['pool', 'gym', 'wifi'], 160, 5], ['C', ['pool'], 100, 3], ['C', ['wifi'], 95, 4],
  ['C', ['wifi', 'gym'], 103, 4], ['C', ['wifi', 'pool'], 110, 5], ['D', ['wifi'], 130, 4],
  ['D', ['wifi', 'gym'], 140, 4], ['D', ['wifi', 'gym', 'pool'], 135, 5], ['E', ['wifi', 'gym'], 190, 4],
  ['E', ['wifi', 'gym', 'pool'], 120, 5],
];

/** Python's str.strip('"'). */
function stripQuotes(s: string): string {
  return s.replace(/^"+/, '').replace(/"+$/, '');
}

function location(raw: string): string {
  const loc = stripQuotes(raw);
  if (!SUPPORTED.has(loc)) throw new PyError('ValueError', `Location [${loc}] is not supported.`);
  return loc;
}

export function findFlights(from: string, to: string, date: string): PyValue {
  const f = location(from);
  const t = location(to);
  return py.list(
    FLIGHTS.filter(([a, b, d]) => a === f && b === t && d === date).map(([a, b, d, price]) =>
      py.dict([
        [py.str('from_location'), py.str(`"${a}"`)],
        [py.str('to_location'), py.str(`"${b}"`)],
        [py.str('date'), py.str(d)],
        [py.str('price'), py.int(price)],
      ]),
    ),
  );
}

export function bookHotel(where: string, preferences: readonly string[]): PyValue {
  const loc = location(where);
  return py.list(
    HOTELS.filter(([l, prefs]) => l === loc && preferences.every((p) => prefs.includes(p))).map(([l, prefs, price, rating]) =>
      py.dict([
        [py.str('location'), py.str(`"${l}"`)],
        [py.str('preferences'), py.list(prefs.map(py.str))],
        [py.str('price_per_night'), py.int(price)],
        [py.str('rating'), py.int(rating)],
      ]),
    ),
  );
}

/** Python's max(*args)/min(*args): one argument must be iterable, so one number is a TypeError. */
function builtinExtreme(args: readonly number[], which: 'min' | 'max'): PyValue {
  if (args.length === 0) throw new PyError('TypeError', `${which} expected at least 1 argument, got 0`);
  if (args.length === 1) throw new PyError('TypeError', "'int' object is not iterable");
  return extreme(args.map(pyNumber), which);
}

export function travelPlannerTools() {
  const floats = z.object({ args: z.array(z.number()).describe('The values (*args).') });
  const flight = z.object({ from_location: z.string(), to_location: z.string(), date: z.string(), price: z.number() });
  const hotel = z.object({ location: z.string(), preferences: z.array(z.string()), price_per_night: z.number(), rating: z.number() });
  return [
    pyTool({
      name: 'find_flights',
      description:
        'Finds flights based on source, destination and date. Arguments: from_location (str), to_location (str), date (str) in YYYY-MM-DD format.\n' +
        'Returns a list of flights, each represented as a dictionary with keys "from_location", "to_location" (destination), "date", and "price".\n' +
        'Example: [{"from_location": "A", "to_location": "B", "date": "2023-12-25", "price": 450}]',
      input: z.object({ from_location: z.string(), to_location: z.string(), date: z.string() }),
      output: z.array(flight),
      examples: [{ from_location: 'A', to_location: 'B', date: '2023-12-29' }],
      positional: (a) => [py.str(a.from_location), py.str(a.to_location), py.str(a.date)],
      run: (a) => findFlights(a.from_location, a.to_location, a.date),
    }),
    pyTool({
      name: 'book_hotel',
      description:
        'Books a hotel based on location and preferences. Arguments: location (str), *preferences (variable number of str arguments).\n' +
        'Returns a list of hotels, each represented as a dictionary with keys "location", "preferences", "price_per_night", and "rating".\n' +
        'Example: [{"location": "A", "preferences": ["wifi", "pool"], "price_per_night": 120, "rating": 4}]',
      input: z.object({ location: z.string(), preferences: z.array(z.string()).default([]).describe('*preferences') }),
      output: z.array(hotel),
      positional: (a) => [py.str(a.location), ...a.preferences.map(py.str)],
      run: (a) => bookHotel(a.location, a.preferences),
    }),
    pyTool({
      name: 'budget_calculator',
      description:
        'Calculates the total budget for a trip. Arguments: flight_price (float), hotel_price_per_night (float), num_nights (int).\n' +
        'Returns the total budget (float).',
      input: z.object({ flight_price: z.number(), hotel_price_per_night: z.number(), num_nights: z.number() }),
      output: z.number(),
      positional: (a) => [pyNumber(a.flight_price), pyNumber(a.hotel_price_per_night), pyNumber(a.num_nights)],
      run: (a) =>
        add(asNum(pyNumber(a.flight_price), '+'), mul(asNum(pyNumber(a.hotel_price_per_night), '*'), asNum(pyNumber(a.num_nights), '*'))),
    }),
    pyTool({
      name: 'max',
      description: 'Finds the maximum value among the given arguments. Accepts variable number of float arguments.',
      input: floats,
      output: z.number(),
      positional: (a) => a.args.map(pyNumber),
      run: (a) => builtinExtreme(a.args, 'max'),
    }),
    pyTool({
      name: 'min',
      description: 'Finds the minimum value among the given arguments. Accepts variable number of float arguments.',
      input: floats,
      output: z.number(),
      positional: (a) => a.args.map(pyNumber),
      run: (a) => builtinExtreme(a.args, 'min'),
    }),
    pyTool({
      name: 'sum',
      description: 'Sums the given arguments. Accepts variable number of float arguments.',
      input: floats,
      output: z.number(),
      positional: (a) => a.args.map(pyNumber),
      run: (a) => a.args.map(pyNumber).reduce<PyValue>((acc, v) => add(asNum(acc, '+'), asNum(v, '+')), py.int(0)),
    }),
  ];
}
