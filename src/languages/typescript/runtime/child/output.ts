// The program's output in the child: its console, its raw process.stdout/stderr writes split into
// lines, and the ledger that bounds logs plus the returned value by limits.maxOutputBytes (frames:
// docs/control-channel.md, "Frames"). Each line becomes one `log` frame, written at once.

const { Writable } = require('node:stream') as typeof import('node:stream');

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const stringify: typeof import('./primordials.js').stringify;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const defineProperty: typeof import('./primordials.js').defineProperty;
declare const write: typeof import('./channel.js').write;
declare const finishWithError: typeof import('./run-program.js').finishWithError;
declare let limits: typeof import('./bootstrap.js').limits;
declare let started: typeof import('./bootstrap.js').started;
declare let finished: typeof import('./bootstrap.js').finished;

/** Bytes of the run's logs so far, each line with its newline: the output ledger. */
export let outputBytes = 0;

function emitLog(stream: 'stdout' | 'stderr', text: string): void {
  // Output before the program starts (Node's own warnings) is not the program's: it is dropped.
  if (!started || finished) return;
  // Each line also costs its newline, so even empty lines are bounded by the ledger.
  const bytes = byteLength(text, 'utf8') + 1;
  if (outputBytes + bytes > limits.maxOutputBytes) {
    finishWithError(
      'OUTPUT_LIMIT',
      `the program's output exceeded ${limits.maxOutputBytes} bytes (logs plus the returned value); ` +
        'log less (counts, the first items, a summary) and return only what is needed',
    );
    return;
  }
  const line = `{"type":"log","stream":"${stream}","text":${stringify(text)}}`;
  if (byteLength(line, 'utf8') > limits.maxFrameBytes) {
    finishWithError('OUTPUT_LIMIT', `one log line is larger than the ${limits.maxFrameBytes}-byte channel limit; log less at once`);
    return;
  }
  outputBytes += bytes;
  write(line);
}

export function consoleStream(stream: 'stdout' | 'stderr'): InstanceType<typeof Writable> {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      // Console writes one chunk per call, ending in a newline: one log entry per console call.
      emitLog(stream, text.endsWith('\n') ? text.slice(0, -1) : text);
      callback();
    },
  });
}

const rawPartial = { stdout: '', stderr: '' };

export function captureRaw(stream: 'stdout' | 'stderr', target: NodeJS.WriteStream): void {
  const rawWrite = function (chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    let text: string;
    if (typeof chunk === 'string') text = chunk;
    else if (chunk instanceof Uint8Array) text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
    else text = String(chunk);
    const done = typeof encoding === 'function' ? encoding : callback;
    const buffered = rawPartial[stream] + text;
    let start = 0;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      emitLog(stream, buffered.slice(start, newline));
      start = newline + 1;
      newline = buffered.indexOf('\n', start);
    }
    let rest = buffered.slice(start);
    // An endless line without a newline still counts against the ledger once it could not fit.
    if (rest.length > limits.maxOutputBytes) {
      emitLog(stream, rest);
      rest = '';
    }
    rawPartial[stream] = rest;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  };
  defineProperty(target, 'write', { value: rawWrite, writable: true, configurable: true });
}

export function flushRaw(): void {
  // Two calls, not a loop over an array: the iterator protocol is a program's to replace.
  flushPartial('stdout');
  flushPartial('stderr');
}

function flushPartial(stream: 'stdout' | 'stderr'): void {
  if (rawPartial[stream] !== '') {
    const text = rawPartial[stream];
    rawPartial[stream] = '';
    emitLog(stream, text);
  }
}

/** Clears the ledger and the partial lines, for the next program of a kept process (child/in-memory.ts). */
export function resetOutput(): void {
  outputBytes = 0;
  rawPartial.stdout = '';
  rawPartial.stderr = '';
}
