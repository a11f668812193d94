// Bounded error text (docs/control-channel.md, "Error text"): a message that comes from a program or a
// runtime may be megabytes long; what reaches the model or the session log is capped, visibly.

import { MAX_ERROR_MESSAGE_BYTES } from './limits.js';

/** The trailing `(program.ts:line:column)` that tells the model where its program failed. */
const LOCATION_SUFFIX = / \(program\.ts:\d+:\d+\)$/;

/**
 * `message` when it fits in `maxBytes` UTF-8 bytes; otherwise its head, a note naming the full size,
 * and the trailing source location (kept so the model still learns where it failed). The result is
 * never longer than `maxBytes` and is cut at a character boundary.
 */
export function capErrorMessage(message: string, maxBytes: number = MAX_ERROR_MESSAGE_BYTES): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short strings need no byte count.
  if (message.length * 3 <= maxBytes) return message;
  const total = Buffer.byteLength(message, 'utf8');
  if (total <= maxBytes) return message;
  const found = LOCATION_SUFFIX.exec(message.slice(-256));
  const location = found === null ? '' : found[0];
  const note = `… [message truncated: ${total} bytes in all]`;
  const budget = maxBytes - Buffer.byteLength(note + location, 'utf8');
  return `${utf8Prefix(message, Math.max(0, budget))}${note}${location}`;
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  // Encode at most what can fit (each code unit is at least one byte), then back off to a boundary.
  const encoded = Buffer.from(text.slice(0, maxBytes), 'utf8');
  if (encoded.length <= maxBytes) return encoded.toString('utf8');
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that does not fit.
  while (end > 0 && ((encoded[end] as number) & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}
