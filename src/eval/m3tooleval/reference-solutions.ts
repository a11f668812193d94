// Reference solutions of the 82 tasks for `ptc eval --replay`: one program body per task that reads
// the task's inputs (copied from its instruction, as a model would) and computes the answer by
// calling the tools — never the answer itself. The ptc replay sends the program as one run_code
// call; the standard replay runs the same program on the host with a `tools` object whose every
// call becomes one model step (replay-model.ts). Programs return the answer text, formatted as the
// benchmark's check needs it (Python's str() of lists, dicts and tuples). docs/eval.md, "Replay".

import type { M3Task } from './tasks.js';

/** Python's str() of a float list / tuple / dict, as the checker compares them. */
const FORMAT = String.raw`
const pyFloat = (x) => (Number.isInteger(x) ? x.toFixed(1) : String(x));
const pyFloatList = (xs) => '[' + xs.map(pyFloat).join(', ') + ']';
const pyScalar = (x) => (typeof x === 'string' ? "'" + x + "'" : String(x));
`;

const DECODE = String.raw`
const decode = async (hex, shift, order) => {
  let text = await tools.convert_hex_to_ascii({ hex_string: hex });
  for (const step of order) {
    text = step === 'reverse' ? await tools.reverse_string({ string: text }) : await tools.caesar_decode({ message: text, shift });
  }
  return text;
};
`;

const MESSAGE_DECODER: Record<string, string> = {
  full_alien_message_decoding: `return await decode('7a686b7a686d666d686b', 5, ['reverse', 'caesar']);`,
  shortest_caesar_decoded_message: `
const lengths = [];
for (const hex of ['636261', '686766', '6365646362', '6867666865']) {
  lengths.push(await tools.string_length({ string: await decode(hex, 4, ['reverse', 'caesar']) }));
}
return String(await tools.minimum_value({ args: lengths }));`,
  longest_decoded_string: `
const shifts = [2, 3, 5];
const lengths = [];
for (const [i, hex] of ['4a656d', '4b6867', '4c696f'].entries()) {
  lengths.push(await tools.string_length({ string: await decode(hex, shifts[i], ['reverse', 'caesar']) }));
}
return String(await tools.maximum_value({ args: lengths }));`,
  specific_decoded_character: `return await decode('576562546563686e6f6c6f6779', 7, ['reverse', 'caesar']);`,
  hex_caesar_combined_decoding: `return await decode('4d4f5252', 2, ['caesar']);`,
  multi_step_decoding_challenge: `return await decode('726f77746e6153794d', 3, ['reverse', 'caesar']);`,
  length_based_decoding_puzzle: `
for (const hex of ['646566', '6a6b6c6d', '68696a6b6c']) {
  const text = await decode(hex, 6, ['caesar']);
  if ((await tools.string_length({ string: text })) === 5) return text;
}
return 'none';`,
  maximum_value_decoding: `
const values = [];
for (const hex of ['313233', '343536', '373839']) values.push(Number(await decode(hex, 4, ['caesar', 'reverse'])));
return String(await tools.maximum_value({ args: values }));`,
};

const DNA = String.raw`
const flat = (counts) => Object.entries(counts).flat();
`;

const DNA_SEQUENCER: Record<string, string> = {
  find_most_common_nucleotide_and_transcribe: `
const counts = await tools.count_nucleotides({ dna_sequence: 'AGCTAGCCGATGCA' });
const [top] = await tools.find_max_nucleotide({ args: flat(counts) });
return await tools.transcribe_dna_to_mrna({ dna_sequence: top.repeat(3) });`,
  validate_transcribe_translate: `
if (!(await tools.is_valid_dna_sequence({ dna_sequence: 'AGCTTX' }))) return 'Invalid DNA sequence';
const mrna = await tools.transcribe_dna_to_mrna({ dna_sequence: 'AGCTTX' });
return await tools.translate_mrna_to_amino_acid({ mrna_sequence: mrna });`,
  reverse_transcribe_count_max_nucleotide: `
const dna = await tools.reverse_transcribe_mrna_to_dna({ mrna_sequence: 'AUGCUUUUC' });
const [top] = await tools.find_max_nucleotide({ args: flat(await tools.count_nucleotides({ dna_sequence: dna })) });
return top;`,
  transcribe_translate_amino_acid_length: `
const mrna = await tools.transcribe_dna_to_mrna({ dna_sequence: 'AGCTAGCGTA' });
const chain = await tools.translate_mrna_to_amino_acid({ mrna_sequence: mrna });
return String(chain.split('-').length);`,
  reverse_transcribe_palindrome_check: `
const dna = await tools.reverse_transcribe_mrna_to_dna({ mrna_sequence: 'AUGCGU' });
const counts = await tools.count_nucleotides({ dna_sequence: dna });
return '{' + Object.entries(counts).map(([k, v]) => "'" + k + "': " + v).join(', ') + '}';`,
  validate_find_longest_valid_sequence: `
let best = '';
for (const seq of ['AGCTAG', 'XYZABC', 'GTCAGT']) {
  if ((await tools.is_valid_dna_sequence({ dna_sequence: seq })) && seq.length > best.length) best = seq;
}
return best;`,
  transcribe_translate_find_amino_acid: `
const mrna = await tools.transcribe_dna_to_mrna({ dna_sequence: 'AGCTAGCGTA' });
const chain = await tools.translate_mrna_to_amino_acid({ mrna_sequence: mrna });
return chain.includes('Methionine') ? 'True' : 'False';`,
  find_most_common_nucleotide_combined_sequence: `
const counts = await tools.count_nucleotides({ dna_sequence: ['AGCT', 'CCGA', 'TTAG'].join('') });
const pair = await tools.find_max_nucleotide({ args: flat(counts) });
return '(' + pair.map(pyScalar).join(', ') + ')';`,
};

const TRADE = String.raw`
const finalValue = async (amount, rate, tariffRate) => {
  const converted = await tools.convert_currency({ base_price: amount, conversion_rate: rate });
  const tariff = await tools.calculate_tariff({ price: converted, tariff_rate: tariffRate });
  return tools.estimate_final_value({ price: converted, tariff });
};
`;

const TRADE_CALCULATOR: Record<string, string> = {
  estimate_final_value: `
const tariff = await tools.calculate_tariff({ price: 150, tariff_rate: 7.5 });
return String(await tools.estimate_final_value({ price: 150, tariff }));`,
  interstellar_trade_transaction: `return String(await finalValue(100 * 50, 1.5, 8));`,
  taxed_commodity_export: `return String(await finalValue(200 * 120, 2.0, 5));`,
  best_trade_route_selection: `
const values = [await finalValue(500, 1.3, 7), await finalValue(500, 1.4, 9), await finalValue(500, 1.2, 4)];
return String(await tools.find_minimum({ args: values }));`,
  most_profitable_conversion_rate: `
const values = [];
for (const rate of [2.5, 2.3, 2.7]) values.push(await finalValue(1000 * 300, rate, 10));
return String(await tools.find_maximum({ args: values }));`,
  bulk_trade_quantity_discount: `
const units = 2500;
const amount = units * 1500 * (units >= 2000 ? 0.95 : 1);
return String(await finalValue(amount, 1.8, 12));`,
  comparative_profit_analysis: `
const values = [await finalValue(100 * 300, 1.6, 6), await finalValue(80 * 500, 1.8, 5)];
return String(await tools.find_maximum({ args: values }));`,
  fluctuating_conversion_rates_impact: `
const values = [];
for (const [quantity, rate] of [[100, 1.7], [150, 1.5], [200, 1.6]]) values.push(await finalValue(200 * quantity, rate, 7));
return pyFloatList(values);`,
  optimal_trade_route_multiple_commodities: `
const values = [await finalValue(150 * 200, 1.7, 8), await finalValue(250 * 300, 1.5, 5), await finalValue(100 * 400, 2.0, 10)];
return String(await tools.find_maximum({ args: values }));`,
  seasonal_price_fluctuation_impact: `
const values = [];
for (const price of [200, 250, 180]) values.push(await finalValue(price * 200, 1.8, 7));
return pyFloatList(values);`,
  balancing_multiple_trade_offers: `
const revenue = await finalValue(300 * 250, 1.6, 6);
const cost = await finalValue(150 * 220, 1.5, 4);
return String(await tools.calculator({ expression: revenue + ' - ' + cost }));`,
  dynamic_pricing_strategy: `
const values = [await finalValue(120 * 300 * 1.10, 1.8, 6), await finalValue(100 * 300, 1.8, 6), await finalValue(80 * 300 * 0.95, 1.8, 6)];
return pyFloatList(values);`,
  quantity_tariff_tradeoff: `
const values = [await finalValue(200 * 400, 1.7, 10), await finalValue(150 * 400, 1.7, 5)];
return String(await tools.find_maximum({ args: values }));`,
  optimizing_bulk_purchase_discounts: `
const values = [];
for (const price of [150, 180]) {
  for (const units of [950, 1050]) values.push(await finalValue(units >= 1000 ? units * price * 0.95 : units * price, 1.6, 7));
}
return String(await tools.find_maximum({ args: values }));`,
  currency_fluctuation_hedging: `
const values = [];
for (const rate of [1.5, 1.65, 1.8]) values.push(await finalValue(500 * 250, rate, 8));
return String(await tools.find_minimum({ args: values }));`,
  variable_tariff_profit_maximization: `
const values = [];
for (const [units, tariff] of [[400, 6], [350, 4], [450, 7]]) values.push(await finalValue(units * 300, 1.7, tariff));
return String(await tools.find_maximum({ args: values }));`,
  long_term_vs_short_term_trade_decisions: `
const now = await finalValue(600 * 200, 1.8, 5);
const later = await finalValue(600 * 200 * 1.10, 1.6, 7);
return pyFloatList([now, later]);`,
};

/** One leg: fly from -> to on date, stay nights; pick the hotel by its price or its rating. */
interface Leg {
  readonly from: string;
  readonly to: string;
  readonly date: string;
  readonly nights: number;
  readonly prefs: readonly string[];
  readonly hotel: 'cheapest' | 'best-rated' | 'first' | 'no-pool';
  readonly flight?: 'cheapest' | 'first';
}

const TRAVEL = String.raw`
const pickHotel = (hotels, rule) => {
  if (rule === 'first') return hotels[0];
  if (rule === 'no-pool') hotels = hotels.filter((h) => !h.preferences.includes('pool'));
  if (rule === 'best-rated') return hotels.reduce((a, b) => (b.rating > a.rating ? b : a));
  return hotels.reduce((a, b) => (b.price_per_night < a.price_per_night ? b : a));
};
const legCost = async (leg) => {
  const flights = await tools.find_flights({ from_location: leg.from, to_location: leg.to, date: leg.date });
  const hotels = await tools.book_hotel({ location: leg.to, preferences: leg.prefs });
  const flight = leg.flight === 'first' ? flights[0] : flights.reduce((a, b) => (b.price < a.price ? b : a));
  return tools.budget_calculator({ flight_price: flight.price, hotel_price_per_night: pickHotel(hotels, leg.hotel).price_per_night, num_nights: leg.nights });
};
const tripCost = async (legs) => {
  const costs = [];
  for (const leg of legs) costs.push(await legCost(leg));
  return costs.length === 1 ? costs[0] : tools.sum({ args: costs });
};
`;

const leg = (from: string, to: string, date: string, nights: number, prefs: string[], hotel: Leg['hotel'], flight?: Leg['flight']): Leg => ({
  from,
  to,
  date,
  nights,
  prefs,
  hotel,
  ...(flight ? { flight } : {}),
});

const trip = (legs: Leg[]): string => `return String(await tripCost(${JSON.stringify(legs)}));`;

/** Every flight with every hotel: the cheapest combination. */
const cheapestCombination = (to: string, date: string, nights: number, prefs: string[]): string => `
const flights = await tools.find_flights({ from_location: 'E', to_location: '${to}', date: '${date}' });
const hotels = await tools.book_hotel({ location: '${to}', preferences: ${JSON.stringify(prefs)} });
const budgets = [];
for (const f of flights) for (const h of hotels) budgets.push(await tools.budget_calculator({ flight_price: f.price, hotel_price_per_night: h.price_per_night, num_nights: ${nights} }));
return String(budgets.length === 1 ? budgets[0] : await tools.min({ args: budgets }));`;

const TRAVEL_PLANNING: Record<string, string> = {
  plan_trip_to_0: trip([leg('E', 'A', '2023-12-25', 5, ['wifi', 'pool'], 'first', 'first')]),
  cheapest_new_york_trip: cheapestCombination('B', '2023-11-10', 3, []),
  luxury_tokyo_trip: trip([leg('E', 'C', '2023-10-05', 7, [], 'best-rated')]),
  budget_trip_to_paris: trip([leg('E', 'A', '2023-12-25', 4, [], 'cheapest')]),
  new_york_trip_with_specific_preferences: trip([leg('E', 'B', '2023-11-10', 3, ['gym'], 'no-pool')]),
  london_business_trip: cheapestCombination('D', '2023-08-15', 4, ['wifi']),
  last_minute_tokyo_trip: trip([leg('E', 'C', '2023-12-01', 3, [], 'cheapest')]),
  new_york_holiday_season: trip([leg('E', 'B', '2023-12-15', 7, ['gym', 'pool'], 'cheapest')]),
  multi_city_business_trip: trip([leg('E', 'B', '2023-11-10', 2, ['wifi'], 'cheapest'), leg('B', 'C', '2023-11-13', 3, ['wifi'], 'cheapest')]),
  leisure_multi_city_trip: trip([leg('E', 'A', '2023-12-25', 3, [], 'cheapest'), leg('A', 'D', '2023-12-28', 2, [], 'cheapest')]),
  three_city_european_tour: trip([
    leg('E', 'A', '2023-12-25', 3, ['wifi'], 'cheapest'),
    leg('A', 'D', '2023-12-29', 4, ['wifi'], 'cheapest'),
    leg('D', 'C', '2024-01-02', 3, ['wifi'], 'cheapest'),
  ]),
  adventure_trip: trip([
    leg('E', 'C', '2023-12-01', 2, ['pool'], 'cheapest'),
    leg('C', 'B', '2023-12-03', 3, [], 'cheapest'),
    leg('B', 'D', '2023-12-06', 2, ['gym'], 'cheapest'),
  ]),
  cultural_exploration_tour: trip([
    leg('E', 'A', '2023-12-25', 4, ['wifi'], 'cheapest'),
    leg('A', 'B', '2023-12-29', 2, ['wifi'], 'cheapest'),
    leg('B', 'D', '2024-01-01', 3, ['wifi'], 'best-rated'),
  ]),
  leisure_and_business_combo: trip([
    leg('E', 'D', '2023-08-15', 3, ['wifi', 'gym'], 'cheapest'),
    leg('D', 'A', '2023-08-18', 2, ['pool'], 'cheapest'),
    leg('A', 'C', '2023-08-20', 2, ['wifi', 'gym'], 'cheapest'),
  ]),
  grand_tour_vacation: trip([
    leg('E', 'C', '2023-12-01', 2, [], 'best-rated'),
    leg('C', 'D', '2023-12-03', 3, [], 'best-rated'),
    leg('D', 'B', '2023-12-06', 2, [], 'best-rated'),
    leg('B', 'E', '2023-12-08', 3, [], 'best-rated'),
  ]),
};

/**
 * The browsing helpers: open a page and read it whole (scrolling while the pagination says there is
 * more), follow links by their label or path, and fall back from `_` to `-` when a link is broken
 * (the team page links /team/customer_support, the page is /team/customer-support).
 */
const BROWSE = String.raw`
const bodyOf = (view) => {
  const lines = view.split('\n');
  return lines.slice(lines.indexOf('') + 1, lines.length - 1);
};
const openPage = async (url) => {
  let view = await tools.click_url({ url });
  if (view.startsWith('[URL not found.]')) {
    if (!url.includes('_')) return null;
    view = await tools.click_url({ url: url.replaceAll('_', '-') });
    if (view.startsWith('[URL not found.]')) return null;
  }
  const lines = [];
  for (;;) {
    lines.push(...bodyOf(view));
    const page = /\[Viewing page (\d+) of (\d+)\]/.exec(view);
    if (!page || Number(page[1]) >= Number(page[2])) break;
    view = await tools.scroll_down({});
    if (view.startsWith('[Reached the bottom')) break;
  }
  return lines;
};
const linksOf = (lines) => lines.map((line) => /\[Clickable '([^']+)'\]/.exec(line)).filter(Boolean).map((m) => m[1]);
const slug = (name) => name.toLowerCase().replaceAll(' ', '_');
const field = (lines, label) => {
  const line = lines.find((l) => l.startsWith(label + ': '));
  return line ? line.slice(label.length + 2).trim() : null;
};
const categoryPages = new Map();
const priceOf = async (item) => {
  if (categoryPages.size === 0) for (const link of linksOf(await openPage('/products'))) categoryPages.set(link, null);
  const category = [...categoryPages.keys()].find((link) => slug(item).endsWith(link.split('/').pop()));
  if (categoryPages.get(category) === null) categoryPages.set(category, linksOf(await openPage(category)));
  const itemLink = categoryPages.get(category).find((link) => link.endsWith('/' + slug(item)));
  const lines = await openPage(itemLink);
  const prices = lines.join('\n').match(/Price: \$([0-9.]+)/g);
  return Number(prices[prices.length - 1].slice('Price: $'.length));
};
const teamLinks = async () => linksOf(await openPage('/team'));
const findPerson = async (name) => {
  for (const team of await teamLinks()) {
    const members = linksOf((await openPage(team)) ?? []);
    const link = members.find((m) => m.endsWith('/' + slug(name)));
    if (link) return openPage(link);
  }
  return null;
};
`;

const personTask = (label: 'Email' | 'Phone' | 'Expertise' | 'Department', name: string): string =>
  label === 'Department'
    ? `const lines = await findPerson(${JSON.stringify(name)});\nreturn /of (.+) Department/.exec(lines[0])[1];`
    : `const lines = await findPerson(${JSON.stringify(name)});\nreturn field(lines, ${JSON.stringify(label)});`;

const totalTask = (items: string[], discount: boolean): string => `
const prices = [];
for (const item of ${JSON.stringify(items)}) prices.push(await priceOf(item));
const sum = prices.join(' + ');
return String(await tools.calculator({ expression: ${discount ? "'(' + sum + ') * 0.9'" : 'sum'} }));`;

const countTask = (team: string): string => `
const link = (await teamLinks()).find((l) => l.endsWith('/' + ${JSON.stringify(team)}));
return String(linksOf(await openPage(link)).length);`;

const phoneTask = (phone: string): string => `
for (const team of await teamLinks()) {
  for (const member of linksOf((await openPage(team)) ?? [])) {
    const lines = await openPage(member);
    if (field(lines, 'Phone') === ${JSON.stringify(phone)}) return lines[0].replace(/ of .+ Department$/, '');
  }
}
return 'not found';`;

function webProgram(task: M3Task): string | undefined {
  const short = task.name.slice('web_browsing/'.length);
  const instruction = task.instruction;
  const person = /(?:email|department|phone number|expertise) of ([A-Z][a-z]+ [A-Z][a-z]+)/.exec(instruction)?.[1];
  if (short.startsWith('price_of_')) return `return String(await priceOf(${JSON.stringify(/price of (.+)\.\n/.exec(instruction)![1])}));`;
  if (short.startsWith('email_of_')) return personTask('Email', person!);
  if (short.startsWith('phone_number_of_')) return personTask('Phone', person!);
  if (short.startsWith('expertise_of_')) return personTask('Expertise', person!);
  if (short.startsWith('department_of_')) return personTask('Department', person!);
  if (short.startsWith('total_price_of_selected_items')) {
    const items = /total price of \[([^\]]+)\]/.exec(instruction)![1]!.split(', ');
    return totalTask(items, short.includes('after_discount'));
  }
  if (short.startsWith('people_in_')) return countTask(slug(/in the (.+) Department/.exec(instruction)![1]!));
  if (short.startsWith('match_phone_number_to_person')) return phoneTask(/phone number is (.+)\?/.exec(instruction)![1]!);
  return undefined;
}

function slug(name: string): string {
  return name.toLowerCase().replaceAll(' ', '_');
}

/** The reference program of a task (the body of an async function; `tools` is in scope). */
export function referenceProgram(task: M3Task): string {
  const short = task.name.slice(task.name.indexOf('/') + 1);
  const [prelude, body] =
    task.domain === 'message_decoder'
      ? [DECODE, MESSAGE_DECODER[short]]
      : task.domain === 'cryptobotanists_plant_dna_sequencer'
        ? [FORMAT + DNA, DNA_SEQUENCER[short]]
        : task.domain === 'trade_calculator'
          ? [FORMAT + TRADE, TRADE_CALCULATOR[short]]
          : task.domain === 'travel_itinerary_planning'
            ? [TRAVEL, TRAVEL_PLANNING[short]]
            : [BROWSE, webProgram(task)];
  if (body === undefined) throw new Error(`No reference solution for ${task.name}.`);
  return `${prelude.trim()}\n${body.trim()}\n`;
}
