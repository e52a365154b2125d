import { existsSync, readFileSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { globSource, holdsSecret, writeFileAtomic, type GlobSyntax } from '../runtime/support';

/** One executed cell: Jupyter numbers history by (session, line), line being the execution count. */
export interface HistoryEntry {
  session: number;
  line: number;
  input: string;
}

/** What history_request asks for (messaging spec), minus the flags every answer ignores. */
export interface HistoryQuery {
  hist_access_type: 'tail' | 'range' | 'search';
  output?: boolean;
  session?: number;
  start?: number;
  stop?: number;
  n?: number;
  pattern?: string;
  unique?: boolean;
}

/** Reply rows: `[session, line, input]`, or `[session, line, [input, output]]` when output is asked. */
export type HistoryRow = [number, number, string | [string, null]];

/** Past this many entries the file is cut to its newest half when a kernel starts. */
const MAX_ENTRIES = 10_000;

/**
 * The kernel's input history, kept in the workspace (one JSON line per cell) so that a new kernel
 * (and `jupyter console`, which loads the tail at start) sees earlier sessions. Outputs are not kept
 * (like IPython's default): tables can be large and the notebook already holds them.
 */
export class History {
  private readonly entries: HistoryEntry[];
  /** This kernel's session number: one more than any session in the file. */
  readonly session: number;
  private folderReady = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {
    const stored = existsSync(file) ? parseLines(readFileSync(file, 'utf8')) : [];
    this.session = stored.reduce((max, e) => Math.max(max, e.session), 0) + 1;
    // A file written before secrets were kept out of it is rewritten without them.
    this.entries = stored.filter((e) => !holdsSecret(e.input));
    const trim = this.entries.length > MAX_ENTRIES;
    if (trim) this.entries.splice(0, this.entries.length - MAX_ENTRIES / 2);
    if (trim || this.entries.length < stored.length)
      writeFileAtomic(file, this.entries.map((e) => JSON.stringify(e) + '\n').join(''), 0o600);
  }

  /**
   * Records a cell. The file is appended to in the background, in order (a synchronous append costs
   * a tenth of a trivial cell's round trip, spent before its output could leave). A cell carrying a
   * secret (`%connection add … --bearer TOKEN`) stays in this session's history only, as in the REPL.
   */
  add(line: number, input: string): void {
    const entry = { session: this.session, line, input };
    this.entries.push(entry);
    if (holdsSecret(input)) return;
    const text = JSON.stringify(entry) + '\n';
    this.writing = this.writing
      .then(async () => {
        // The kernel may record before the session created the workspace folder.
        if (!this.folderReady) await mkdir(dirname(this.file), { recursive: true });
        this.folderReady = true;
        await appendFile(this.file, text, { mode: 0o600 });
      })
      // A read-only workspace keeps the history in memory only; executing must not fail for it.
      .catch(() => undefined);
  }

  /** Resolves when every recorded cell is in the file. */
  flushed(): Promise<void> {
    return this.writing;
  }

  query(q: HistoryQuery): HistoryRow[] {
    let rows: HistoryEntry[];
    switch (q.hist_access_type) {
      case 'tail':
        rows = lastN(this.entries, q.n);
        break;
      case 'range': {
        // Negative sessions count back from this one (IPython's convention: -1 is the previous session).
        const session =
          q.session === undefined || q.session === 0
            ? this.session
            : q.session < 0
              ? this.session + q.session
              : q.session;
        const start = q.start ?? 1;
        rows = this.entries.filter(
          (e) =>
            e.session === session && e.line >= start && (q.stop === undefined || q.stop === null || e.line < q.stop),
        );
        break;
      }
      case 'search': {
        const re = searchPattern(q.pattern ?? '*');
        let found = re ? this.entries.filter((e) => re.test(e.input)) : [];
        if (q.unique) {
          const seen = new Set<string>();
          found = found
            .reverse()
            .filter((e) => !seen.has(e.input) && seen.add(e.input))
            .reverse();
        }
        rows = lastN(found, q.n);
        break;
      }
      default:
        rows = [];
    }
    return rows.map((e) => [e.session, e.line, q.output ? [e.input, null] : e.input]);
  }
}

function lastN<T>(items: T[], n: number | undefined): T[] {
  return n === undefined || n === null || n <= 0 ? items.slice() : items.slice(-n);
}

function parseLines(text: string): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as HistoryEntry;
      if (typeof e.session === 'number' && typeof e.line === 'number' && typeof e.input === 'string') out.push(e);
    } catch {
      // A line cut by a crash mid-append is skipped; the rest of the history stays usable.
    }
  }
  return out;
}

/** SQLite GLOB, which IPython's history search uses: wildcards match newlines too, `[^…]` negates. */
const HISTORY_GLOB: GlobSyntax = { anyChar: '[\\s\\S]', negate: '^' };

/** The glob of history searches: `*`, `?`, `[…]`, matched against the whole input. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${globSource(glob, HISTORY_GLOB)}$`);
}

/** A search's pattern; an invalid glob (a backwards range) matches nothing, as a search it is not an error. */
function searchPattern(glob: string): RegExp | undefined {
  try {
    return globToRegExp(glob);
  } catch {
    return undefined;
  }
}
