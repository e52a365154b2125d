import { maskOpenedSecrets, redactUrlsAt } from './workspace/redact';
import { endsLine, linesOf } from './util/lines';
/** A position in the script text. Lines and columns are 1-based; offset is 0-based into the cell text. */
export interface Position {
  line: number;
  column: number;
  offset: number;
  /**
   * The script's text from here on, where it differs from the value that starts here: a quoted
   * literal's (or ADD COLUMN's `(name='…')` default's) `''` that the value holds as one `'`
   * (positionIn). Errors keep only line, column and offset.
   */
  written?: string;
}

/**
 * Maps an index in a text to a script position, from where the text starts in the cell: lines follow
 * its newlines, and a `'` of the value that the script wrote `''` counts as its two characters. The
 * written text is walked beside the value, so a context that keeps lone quotes and undoubles `''`
 * (a block's quoted default) is mapped as exactly as a string literal.
 */
export function positionIn(base: Position | undefined, text: string, index: number): Position | undefined {
  return new PositionCursor(base, text).at(index);
}

/**
 * positionIn for many indexes of one text (a template's fields and calls): each index is reached from
 * the last one asked, not from the text's start, so a text of n parts costs O(length) in all rather
 * than O(n × length) (20,000 fields in one template took 8.5 s).
 */
export class PositionCursor {
  private i = 0;
  private w = 0;
  private line = 0;
  private column = 0;
  private offset = 0;
  /** Where the last `''` of the written text starts: past it, no position carries the written text. */
  private readonly lastDoubled: number;

  constructor(
    private readonly base: Position | undefined,
    private readonly text: string,
  ) {
    this.lastDoubled = base?.written?.lastIndexOf("''") ?? -1;
    this.rewind();
  }

  at(index: number): Position | undefined {
    const base = this.base;
    if (!base) return undefined;
    if (index < this.i) this.rewind();
    const { text } = this;
    const written = base.written;
    const end = Math.min(index, text.length);
    for (; this.i < end; this.i++) {
      const c = text.charCodeAt(this.i);
      const width = c === 39 && written?.charCodeAt(this.w) === 39 && written.charCodeAt(this.w + 1) === 39 ? 2 : 1;
      this.w += width;
      this.offset += width;
      if (endsLine(text, this.i)) {
        this.line++;
        this.column = 1;
      } else this.column += width;
    }
    const position = { line: this.line, column: this.column, offset: this.offset + Math.max(0, index - end) };
    return written && this.w <= this.lastDoubled ? { ...position, written: written.slice(this.w) } : position;
  }

  private rewind(): void {
    this.i = 0;
    this.w = 0;
    this.line = this.base?.line ?? 0;
    this.column = this.base?.column ?? 0;
    this.offset = this.base?.offset ?? 0;
  }
}

/** A position whose value was written with doubled quotes carries the text as written (positionIn). */
export function withWritten(position: Position, written: string | undefined): Position {
  return written?.includes("''") ? { ...position, written } : position;
}

/** A position as errors carry it. */
function placed(position: Position | undefined): Position | undefined {
  return position && { line: position.line, column: position.column, offset: position.offset };
}

export type ErrorKind =
  | 'syntax' // the text does not parse
  | 'semantic' // parses, but means nothing valid (unknown option, bad type name…)
  | 'runtime' // failed while running (unknown column, HTTP error, bad file…)
  | 'unsupported' // a statement whose meaning belongs to a later issue
  | 'cancelled'; // interrupted by the user (AbortSignal)

/**
 * Every user-facing failure is a ScriptError: front ends render it (statement, line, column, caret)
 * and never show a stack trace for it.
 */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
  constructor(
    message: string,
    readonly kind: ErrorKind = 'runtime',
    /** Where in the cell text the problem is; absent when it has no place (a magic, a file). */
    public position?: Position,
    /** The statement's keyword(s), e.g. "APPLY FILTER", filled in by the session when known. */
    public statement?: string,
  ) {
    super(message);
    this.position = placed(position);
  }

  /**
   * The script `position` is in when it is not the text the front end ran: a job's script failing
   * under `%job run` is shown at its own line, named, rather than against the cell's text.
   */
  script?: { name: string; text: string };

  inScript(name: string, text: string): this {
    this.script ??= { name, text };
    return this;
  }

  /** Attaches position/statement when the thrower did not know them; keeps the innermost ones. */
  locate(position: Position | undefined, statement?: string): this {
    if (!this.position && position) this.position = placed(position);
    if (!this.statement && statement) this.statement = statement;
    return this;
  }
}

export function isScriptError(e: unknown): e is ScriptError {
  return e instanceof ScriptError;
}

/** Wraps anything thrown into a ScriptError without losing an existing one. */
export function toScriptError(e: unknown, position?: Position, statement?: string): ScriptError {
  const error = asScriptError(e, position, statement);
  // A server or a database may quote a value an encrypted variable gave the statement.
  error.message = maskOpenedSecrets(error.message);
  return error;
}

function asScriptError(e: unknown, position?: Position, statement?: string): ScriptError {
  if (e instanceof ScriptError) return e.locate(position, statement);
  if (e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'ABORT_ERR')) {
    return new ScriptError('cancelled', 'cancelled', position, statement);
  }
  const message = e instanceof Error ? e.message : String(e);
  return new ScriptError(message, 'runtime', position, statement);
}

/**
 * Text of `line` with a caret under `column`: what the REPL, CLI and kernel traceback show. A URL's
 * password written in the script is masked, as in every message.
 */
export function caretLines(source: string, position: Position): string[] {
  const lines = linesOf(source).map((l) => l.text);
  const before = lines
    .slice(0, position.line - 1)
    .reverse()
    .find((l) => l.trim() !== '');
  const { line, column } = redactUrlsAt(lines[position.line - 1] ?? '', position.column, before);
  // The line's own tabs stay in the padding: a terminal widens them alike above and below.
  const padding = line.slice(0, Math.max(0, column - 1)).replace(/[^\t]/g, ' ');
  return [line, padding.padEnd(Math.max(0, column - 1)) + '^'];
}

/** An error placed in a script file, as compilers report: `file:line:col: <STATEMENT>: reason`. */
export function errorInFile(file: string, e: ScriptError): string {
  const label = e.statement ?? (e.kind === 'syntax' ? 'syntax error' : 'error');
  return e.position
    ? `${file}:${e.position.line}:${e.position.column}: ${label}: ${e.message}`
    : `${file}: ${label}: ${e.message}`;
}

/** The standard rendering of an error: "<STATEMENT> at line L, column C: reason". */
export function describeError(e: ScriptError): string {
  const where =
    (e.position ? ` at line ${e.position.line}, column ${e.position.column}` : '') +
    (e.script ? ` in ${e.script.name}` : '');
  const stmt = e.statement ? `${e.statement}` : e.kind === 'syntax' ? 'syntax error' : 'error';
  return `${stmt}${where}: ${e.message}`;
}

/** What a statement throws when the run's signal (Ctrl-C, a kernel interrupt) aborts it. */
export function cancelled(): ScriptError {
  return new ScriptError('cancelled', 'cancelled');
}
