import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { redactMagicLine, writeFileAtomic } from '../runtime/support';

/**
 * The REPL history in `<workspace>/repl_history`: one entered line per file line, oldest first,
 * appended as lines are entered. Kept by hand rather than with repl.setupHistory because node only
 * records history on a TTY, and a piped REPL (scripts, tests) should leave the same trace.
 */
export class ReplHistory {
  private last = '';

  constructor(
    private readonly file: string,
    private readonly size = 1000,
  ) {}

  /** The most recent entries, newest first (readline's order). Trims the file when it grew large. */
  load(): string[] {
    if (!existsSync(this.file)) return [];
    const lines = readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const kept = lines.slice(-this.size);
    if (lines.length > 2 * this.size) writeFileAtomic(this.file, kept.join('\n') + '\n', 0o600);
    this.last = kept[kept.length - 1] ?? '';
    return kept.reverse();
  }

  record(line: string): void {
    // A line carrying a secret (%connection add … --bearer TOKEN, a URL's password) stays out of the file.
    if (line.trim() === '' || line === this.last || redactMagicLine(line) !== line) return;
    this.last = line;
    appendFileSync(this.file, line.replace(/\r?\n/g, ' ') + '\n', { mode: 0o600 });
  }
}
