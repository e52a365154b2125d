import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { holdsSecret, writeFileAtomic } from '../runtime/support';

/**
 * The REPL history in `<workspace>/repl_history`: one entered line per file line, oldest first,
 * appended as lines are entered. Kept by hand rather than with repl.setupHistory because node only
 * records history on a TTY, and a piped REPL (scripts, tests) should leave the same trace.
 */
export class ReplHistory {
  private last = '';
  /** The last line entered that was not blank, recorded or not: a secret may start on it and end on the next. */
  private previous = '';

  constructor(
    private readonly file: string,
    private readonly size = 1000,
  ) {}

  /** The most recent entries, newest first (readline's order). Trims the file when it grew large. */
  load(): string[] {
    if (!existsSync(this.file)) return [];
    const stored = readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    // A file written before secrets were kept out of it is rewritten without them.
    const lines = stored.filter((l) => !holdsSecret(l));
    const kept = lines.slice(-this.size);
    if (lines.length > 2 * this.size || lines.length < stored.length)
      writeFileAtomic(this.file, kept.join('\n') + '\n', 0o600);
    this.last = kept[kept.length - 1] ?? '';
    return kept.reverse();
  }

  record(line: string): void {
    const previous = this.previous;
    if (line.trim() !== '') this.previous = line;
    // A line that carries a secret (%connection add … --bearer TOKEN) stays out of the file, and so does
    // one that completes a secret the line before opened (CREDENTIALS at its end, the value here).
    const continued = !holdsSecret(previous) && holdsSecret(`${previous}\n${line}`);
    if (line.trim() === '' || line === this.last || holdsSecret(line) || continued) return;
    this.last = line;
    appendFileSync(this.file, line.replace(/\r?\n/g, ' ') + '\n', { mode: 0o600 });
  }
}
