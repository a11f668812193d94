// A program on a real pseudo-terminal (tmux), typed at with send-keys and read with capture-pane:
// how a person would use `ptc chat`. One tmux server per instance, on its own socket.

import { spawnSync } from 'node:child_process';
import path from 'node:path';

import { waitUntil } from './wait-until.js';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/** A bound on waiting for the screen, not a timing claim. */
const SCREEN_WAIT_MS = 30_000;

export class TmuxTerminal {
  private readonly socket: string;

  /** Starts `command` (a shell line) in a `width`×`height` terminal; `dir` holds the tmux socket. */
  constructor(dir: string, name: string, command: string, width = 200, height = 60) {
    this.socket = path.join(dir, `${name}.tmux`);
    const started = this.tmux('new-session', '-d', '-s', 'main', '-x', String(width), '-y', String(height), command);
    if (started.status !== 0) throw new Error(`tmux did not start: ${started.stderr}`);
  }

  private tmux(...args: string[]) {
    return spawnSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8' });
  }

  /** The screen and its scrollback as text; with `escapes`, with the colour escape sequences. */
  screen(escapes = false): string {
    return this.tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-500', '-t', 'main').stdout;
  }

  /** Types keys (tmux key names such as `Enter`, `Tab`, `C-c`; other strings are typed literally). */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** Types `text` literally, then Enter. */
  line(text: string): void {
    this.tmux('send-keys', '-t', 'main', '-l', text);
    this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  /** Waits until the screen matches `pattern` (counting matches when `count` is given). */
  async waitFor(what: string, pattern: RegExp, count = 1): Promise<void> {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    try {
      await waitUntil(`${what} on the terminal`, () => (this.screen().match(global)?.length ?? 0) >= count, SCREEN_WAIT_MS);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the screen:\n${this.screen()}`);
    }
  }

  close(): void {
    this.tmux('kill-server');
  }
}
