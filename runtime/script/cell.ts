import { matchHead } from './commands';
import { parseScript } from './parser';
import { SourceText } from './source';
import { endOf, lexRange, problemOf, Semicolon, UnclosedBlock } from './tokens';
import { lineEnd } from '../util/lines';

/**
 * A cell — a notebook cell, a REPL entry, a script — is leading `%magic` lines then SQL CDC
 * statements. Every front end and the session split and judge cells here, so they agree on where
 * the statements start and on when a cell is ready to run.
 */

/** A `%name args` line at the start of a cell. */
export interface MagicLine {
  name: string;
  args: string;
  /** 1-based line of the magic in the cell. */
  line: number;
  /** 1-based column of its `%`, and its offset in the cell: where an error of the magic is shown. */
  column: number;
  offset: number;
  /** 1-based column where `args` starts on the line: an error about one argument is shown there. */
  argsColumn: number;
  /** The `origin` of the execute call that ran the cell: output a magic starts (a listener's) goes there. */
  origin?: string;
  /** The cell's interrupt (Ctrl-C, interrupt_request): a magic that waits (`%webhook wait`, `%job run`) ends on it. */
  signal?: AbortSignal;
}

export interface SplitCell {
  magics: MagicLine[];
  /** The SQL CDC after the magic lines. */
  body: string;
  /** Where `body` starts in the cell: statement positions stay in the cell's coordinates. */
  bodyOffset: number;
  /** Where the last magic line ends (0 when there is none), before the blank lines and comments after it. */
  magicsEnd: number;
}

/** Splits off the leading magic lines; blank lines and `--` comments may stand between them. */
export function splitCell(text: string): SplitCell {
  const magics: MagicLine[] = [];
  let offset = 0;
  let magicsEnd = 0;
  let line = 1;
  while (offset < text.length) {
    const eol = lineEnd(text, offset);
    const end = eol + (text.startsWith('\r\n', eol) ? 2 : eol < text.length ? 1 : 0);
    const whole = text.slice(offset, end);
    const raw = whole.trim();
    if (raw.startsWith('%')) {
      const m = /^%(\S*)\s*(.*)$/s.exec(raw)!;
      const lead = whole.length - whole.trimStart().length;
      magics.push({
        name: m[1],
        args: m[2].trim(),
        line,
        column: lead + 1,
        offset: offset + lead,
        argsColumn: lead + 1 + raw.length - m[2].length,
      });
      magicsEnd = end;
    } else if (raw !== '' && !raw.startsWith('--')) {
      break;
    }
    offset = end;
    line++;
  }
  return { magics, body: text.slice(offset), bodyOffset: offset, magicsEnd };
}

export type CellStatus = { status: 'complete' } | { status: 'incomplete'; indent: string } | { status: 'invalid' };

/**
 * Whether a cell is ready to run, for the REPL and the kernel's is_complete_request (the shape of
 * its reply). Magic lines are always complete; the statements after them are
 * - complete: none (empty, or only comments), or they end with a top-level `;` and parse;
 * - incomplete: a string, `( … )` block or `{{` is still open, or the last statement has no `;` yet
 *   (`indent` is the indentation suggested for the next line);
 * - invalid: they cannot parse however they continue — a stray `)`, a `[` not closed on its line, a
 *   statement before the last `;` that fails, or a last statement that does not start like a command.
 * A front end runs complete and invalid cells (an invalid one shows its error) and asks for more
 * lines while a cell is incomplete. A cell magic's body (`%%job NAME writer`) is kept, not run, so
 * it may hold anything: as in IPython, such a cell is complete once its last line (the one being
 * typed, after the last newline) is empty.
 */
export function cellStatus(text: string): CellStatus {
  if (/^\s*%%/.test(text)) {
    const lines = text.split('\n');
    return lines.length > 1 && !lines[lines.length - 1].trim()
      ? { status: 'complete' }
      : { status: 'incomplete', indent: '' };
  }
  return statementsStatus(splitCell(text).body);
}

function statementsStatus(text: string): CellStatus {
  const source = new SourceText(text);
  const tokens = lexRange(source, 0, text.length);
  for (const t of tokens) {
    const problem = problemOf(t, source);
    if (!problem) continue;
    if (problem.kind === 'invalid') return { status: 'invalid' };
    return {
      status: 'incomplete',
      indent: t.tokenType === UnclosedBlock ? `${source.indentAt(t.startOffset)}    ` : '',
    };
  }
  if (!tokens.length) return { status: 'complete' };
  const lastSemicolon = tokens.map((t) => t.tokenType).lastIndexOf(Semicolon);
  const parses = (upTo: number) => {
    try {
      parseScript(text.slice(0, upTo));
      return true;
    } catch {
      return false;
    }
  };
  if (lastSemicolon === tokens.length - 1) return { status: parses(text.length) ? 'complete' : 'invalid' };
  if (lastSemicolon >= 0 && !parses(endOf(tokens[lastSemicolon]))) return { status: 'invalid' };
  const rest = tokens.slice(lastSemicolon + 1);
  const head = matchHead(rest);
  if (head.kind === 'mismatch' && head.index < rest.length) return { status: 'invalid' };
  return { status: 'incomplete', indent: `${source.indentAt(rest[0].startOffset)}    ` };
}
