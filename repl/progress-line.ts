import type { Result } from '../runtime/index';

/**
 * A statement's progress in a terminal: one line on stderr, redrawn in place on a TTY and ended when
 * the statement is done. Piped output gets nothing: the statement's final message says how it went.
 */
export class ProgressLine {
  private drawn = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  show(r: Extract<Result, { kind: 'progress' }>): void {
    if (!this.stream.isTTY) return;
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    this.stream.write(`\r\x1b[K${r.text.slice(0, width)}`);
    this.drawn = !r.done;
    if (r.done) this.stream.write('\n');
  }

  /**
   * Wipes the line while other output (a listener's call) is written where it stood; the next
   * update draws it again below that output.
   */
  clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }

  /** Ends a line left open (the statement failed before saying it was done). */
  end(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}
