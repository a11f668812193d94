// Serialises one event as a log line and shrinks it when it exceeds the line limit. An oversized
// event is never dropped: its longest strings are cut (with a marker saying how much was kept), and
// if that is not enough its large fields are emptied; the line's `truncated` note lists both.

import { MIN_SESSION_TRUNCATED_STRING_CHARS } from '../limits.js';

/** What `fitLine` produced: the JSON text (no LF) and the record it encodes. */
export interface FittedLine {
  readonly line: string;
  readonly record: Record<string, unknown>;
  /** UTF-8 size of `line` plus its LF. */
  readonly bytes: number;
  /** True when the record had to be shrunk. */
  readonly truncated: boolean;
}

// Fields that identify a line are never touched.
const PROTECTED_FIELDS = new Set(['type', 'ts']);
// Room for the marker appended to a cut string (JSON-escaped bytes).
const MARKER_RESERVE_BYTES = 96;
// Room for the `truncated` note and rounding in the first estimate of how much to cut (at most an
// eighth of the line, so that small limits are not eaten up by the reserve).
const NOTE_RESERVE_BYTES = 4096;
// The note lists at most this many pointers of cut fields.
const MAX_LISTED_FIELDS = 100;
const MAX_CUT_ATTEMPTS = 24;

/** The UTF-8 size of `line` once written, LF included. */
export function lineBytes(line: string): number {
  return Buffer.byteLength(line, 'utf8') + 1;
}

/**
 * Returns `record` as one JSON line of at most `maxLineBytes` (LF included). The limit can be
 * exceeded only when the identifying fields alone are larger, which the default limit rules out.
 */
export function fitLine(record: Record<string, unknown>, maxLineBytes: number): FittedLine {
  const line = JSON.stringify(record);
  const originalBytes = lineBytes(line);
  if (originalBytes <= maxLineBytes) return { line, record, bytes: originalBytes, truncated: false };

  const sizes: number[] = [];
  collectLongStrings(record, true, sizes);
  const reserve = Math.min(NOTE_RESERVE_BYTES, Math.floor(maxLineBytes / 8));
  let cap = initialCap(sizes, originalBytes - maxLineBytes + reserve);
  let smallest = record;
  let fields: string[] = [];
  for (let attempt = 0; attempt < MAX_CUT_ATTEMPTS && sizes.length > 0; attempt++) {
    fields = [];
    const cut = cutStrings(record, '', cap, fields) as Record<string, unknown>;
    const candidate = { ...cut, truncated: { originalBytes, fields: listed(fields) } };
    const text = JSON.stringify(candidate);
    const bytes = lineBytes(text);
    if (bytes <= maxLineBytes) return { line: text, record: candidate, bytes, truncated: true };
    smallest = cut;
    if (cap <= MARKER_RESERVE_BYTES) break;
    cap = Math.max(MARKER_RESERVE_BYTES, Math.floor(cap * 0.6));
  }

  // Cutting strings was not enough (many small values, a huge array of numbers...): replace every
  // large top-level field by an empty value of its kind (a string by a marker), so the line keeps
  // its type's shape and still reads as an event.
  const smallBytes = Math.max(64, Math.floor(maxLineBytes / 64));
  const omitted: string[] = [];
  const reduced: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(smallest)) {
    if (PROTECTED_FIELDS.has(key) || key === 'truncated' || jsonBytes(value) <= smallBytes) {
      reduced[key] = value;
    } else {
      reduced[key] = emptyLike(value, jsonBytes(value));
      omitted.push(pointer('', key));
    }
  }
  const stillCut = fields.filter((f) => !omitted.some((o) => f === o || f.startsWith(`${o}/`)));
  const candidate = { ...reduced, truncated: { originalBytes, fields: listed(stillCut), omitted } };
  const text = JSON.stringify(candidate);
  return { line: text, record: candidate, bytes: lineBytes(text), truncated: true };
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

function collectLongStrings(value: unknown, top: boolean, out: number[]): void {
  if (typeof value === 'string') {
    if (value.length > MIN_SESSION_TRUNCATED_STRING_CHARS) out.push(jsonBytes(value));
  } else if (Array.isArray(value)) {
    for (const item of value) collectLongStrings(item, false, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!(top && PROTECTED_FIELDS.has(key))) collectLongStrings(item, false, out);
    }
  }
}

/**
 * The largest per-string size (serialized bytes) such that cutting every longer string down to it
 * saves `excess` bytes: cut the k longest to a common cap, for the smallest k that suffices.
 */
function initialCap(sizes: number[], excess: number): number {
  const sorted = [...sizes].sort((a, b) => b - a);
  let sum = 0;
  for (let k = 1; k <= sorted.length; k++) {
    sum += sorted[k - 1]!;
    const cap = Math.floor((sum - excess - k * MARKER_RESERVE_BYTES) / k);
    if (cap >= (sorted[k] ?? 0) && cap > MARKER_RESERVE_BYTES) return cap;
  }
  return MARKER_RESERVE_BYTES;
}

function cutStrings(value: unknown, at: string, capBytes: number, fields: string[]): unknown {
  if (typeof value === 'string') {
    if (value.length <= MIN_SESSION_TRUNCATED_STRING_CHARS) return value;
    const bytes = jsonBytes(value);
    if (bytes <= capBytes) return value;
    fields.push(at);
    return cutString(value, bytes, capBytes);
  }
  if (Array.isArray(value)) return value.map((item, i) => cutStrings(item, pointer(at, String(i)), capBytes, fields));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = at === '' && PROTECTED_FIELDS.has(key) ? item : cutStrings(item, pointer(at, key), capBytes, fields);
    }
    return out;
  }
  return value;
}

function cutString(value: string, bytes: number, capBytes: number): string {
  // Bytes per character vary along a string; the caller re-measures and cuts harder if needed.
  let keep = Math.floor((value.length * Math.max(0, capBytes - MARKER_RESERVE_BYTES)) / bytes);
  const last = value.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1; // never split a surrogate pair
  return `${value.slice(0, keep)}…[cut by the session log: kept ${keep} of ${value.length} chars]`;
}

function emptyLike(value: unknown, bytes: number): unknown {
  if (typeof value === 'string') return `[omitted by the session log: ${bytes} bytes]`;
  if (Array.isArray(value)) return [];
  if (value !== null && typeof value === 'object') return {};
  return null;
}

function listed(fields: string[]): string[] {
  return fields.length <= MAX_LISTED_FIELDS ? fields : fields.slice(0, MAX_LISTED_FIELDS);
}

function pointer(base: string, key: string): string {
  return `${base}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
