// The program each regex worker thread of src/builtin-tools/regex-worker-pool.ts runs: it tests a
// pattern against lines of texts or of files it opens itself (docs/grep-regex.md). Its own file: it is
// plain JavaScript in a string, read apart from the pool that schedules it.

/**
 * The worker's program, plain JavaScript run with `eval: true`: it needs no TypeScript loader, so the
 * same string works from the sources under vitest and from dist/. It uses only a dynamic `import()`,
 * valid both as a script and as a module (a host started with `--input-type=module` evaluates it as one).
 * Lines are split like `splitLines` in read.ts (LF; one trailing CR dropped; a final newline does not
 * start a line). Two kinds of job:
 * - `lines`: texts in, a flat list of 1-based matching line numbers plus, per text, where its numbers
 *   end, both transferred, not copied.
 * - `files`: files to open and read here (docs/grep-regex.md): each by name through a directory
 *   descriptor the host holds (`/proc/self/fd/<dir>/<name>`, O_NOFOLLOW, like openat), or an already
 *   opened descriptor. The host owns every descriptor it sends and closes it only after this job
 *   ended (reply) or this thread is gone; a descriptor opened here is closed here, and while it is
 *   open its number sits in `current[0]` so the host can close it if the thread is terminated.
 *   A pattern that cannot match across a line (`whole`) runs once over the whole text with the `gm`
 *   flags, and each hit is checked against its own line with the plain pattern; others run per line.
 */
export const REGEX_WORKER_SOURCE = `
'use strict';
let cachedKey = '';
let cachedLine = null;
let cachedWhole = null;
let buffer = null;
const EMPTY = new Uint32Array(0);
function regexes(source, flags) {
  const key = flags + '/' + source;
  if (key !== cachedKey) {
    cachedLine = new RegExp(source, flags);
    cachedWhole = new RegExp(source, flags + 'gm');
    cachedKey = key;
  }
}
function searchText(text, whole, onMatch) {
  if (whole) {
    const re = cachedWhole;
    let pos = 0;
    let countedTo = 0;
    let lineNo = 1;
    while (pos < text.length) {
      re.lastIndex = pos;
      const m = re.exec(text);
      if (m === null) return;
      const s = m.index;
      const start = s === 0 ? 0 : text.lastIndexOf('\\n', s - 1) + 1;
      if (start >= text.length) return;
      let end = text.indexOf('\\n', start);
      if (end === -1) end = text.length;
      for (;;) {
        const nl = text.indexOf('\\n', countedTo);
        if (nl === -1 || nl >= start) break;
        lineNo++;
        countedTo = nl + 1;
      }
      const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      const line = text.slice(start, stop);
      if (cachedLine.test(line) && onMatch(lineNo, line) === false) return;
      pos = end + 1;
    }
    return;
  }
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\\n', start);
    if (end === -1) end = text.length;
    lineNo++;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const line = text.slice(start, stop);
    if (cachedLine.test(line) && onMatch(lineNo, line) === false) return;
    start = end + 1;
  }
}
Promise.all([import('node:worker_threads'), import('node:fs'), import('node:buffer')]).then(([threads, fs, buf]) => {
  const { parentPort, workerData } = threads;
  const current = workerData.current;
  const LEAF = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  function linesJob(job) {
    regexes(job.source, job.flags);
    const found = [];
    const ends = new Uint32Array(job.texts.length);
    let left = job.maxMatches;
    for (let t = 0; t < job.texts.length; t++) {
      if (left > 0) {
        searchText(job.texts[t], false, (lineNo) => {
          found.push(lineNo);
          return --left > 0;
        });
      }
      ends[t] = found.length;
    }
    const lines = Uint32Array.from(found);
    parentPort.postMessage({ id: job.id, lines, ends }, [lines.buffer, ends.buffer]);
  }
  function readFile(job, i) {
    let fd = job.fds[i];
    const own = fd < 0;
    if (own) {
      try {
        fd = fs.openSync('/proc/self/fd/' + job.dirFds[i] + '/' + job.names[i], LEAF);
      } catch {
        return -1;
      }
      current[0] = fd;
    }
    try {
      if (buffer === null || buffer.length < job.maxBytes + 1) buffer = Buffer.allocUnsafeSlow(job.maxBytes + 1);
      return fs.readSync(fd, buffer, 0, job.maxBytes + 1, 0);
    } catch {
      return -1;
    } finally {
      if (own) {
        // Cleared before the close: a thread stopped in between leaks the descriptor, never closes a reused number.
        current[0] = -1;
        fs.closeSync(fd);
      }
    }
  }
  function filesJob(job) {
    regexes(job.source, job.flags);
    const n = job.names.length;
    const status = new Uint8Array(n);
    const counts = new Uint32Array(n);
    const keptEnds = new Uint32Array(n);
    const keptLines = [];
    const texts = [];
    const lengths = [];
    let keep = job.keep;
    for (let i = 0; i < n; i++) {
      const length = readFile(job, i);
      if (length < 0) {
        status[i] = 2;
      } else if (length > job.maxBytes || buffer.subarray(0, Math.min(length, job.sniffBytes)).includes(0)) {
        status[i] = 1;
      } else {
        const view = buffer.subarray(0, length);
        let text = buf.isAscii(view) ? view.toString('latin1') : view.toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        let count = 0;
        searchText(text, job.whole, (lineNo, line) => {
          count++;
          if (keep > 0) {
            keep--;
            keptLines.push(lineNo);
            texts.push(line.length > job.lineChars ? line.slice(0, job.lineChars) : line);
            lengths.push(line.length);
          }
        });
        counts[i] = count;
      }
      keptEnds[i] = keptLines.length;
    }
    const lines = Uint32Array.from(keptLines);
    const lineLengths = Uint32Array.from(lengths);
    parentPort.postMessage(
      { id: job.id, status, counts, keptEnds, lines, lengths: lineLengths, texts },
      [status.buffer, counts.buffer, keptEnds.buffer, lines.buffer, lineLengths.buffer],
    );
  }
  parentPort.on('message', (job) => {
    try {
      if (job.kind === 'files') filesJob(job);
      else linesJob(job);
    } catch (error) {
      parentPort.postMessage({ id: job.id, error: String(error && error.message ? error.message : error) });
    }
  });
});
`;
