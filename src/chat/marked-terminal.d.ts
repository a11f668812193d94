// Types of the part of `marked-terminal` the chat uses (the package ships none; @types/marked-terminal
// pins an old `marked`). Its extension is a plain `marked` extension object.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  export interface TerminalRendererOptions {
    readonly width?: number;
    readonly reflowText?: boolean;
    readonly tab?: number;
    readonly emoji?: boolean;
    readonly showSectionPrefix?: boolean;
    /** Style of an element: its rendered text in, the text with its escape sequences out. */
    readonly [element: string]: ((text: string) => string) | number | boolean | undefined;
  }

  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
