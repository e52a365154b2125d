import { PositionCursor, ScriptError, type Position } from '../errors';
import { NESTED_TOO_DEEPLY, NESTING_LIMIT } from '../script/limits';
import { findFunction, suggestFunction } from './registry';
import type { BinaryPrefix, FunctionDef } from './types';

/**
 * The template language of spec 4.3/4.4, parsed once: literal text, `{{field}}` (with an optional
 * binary prefix) and `#f(…)`/`@f(…)` calls whose arguments are templates themselves.
 */
export type Part = TextPart | FieldPart | VariablePart | CallPart;

export interface TextPart {
  kind: 'text';
  text: string;
}

/** Where a part other than text was written: its position and how many characters it takes there. */
interface Written {
  pos?: Position;
  length?: number;
}

export interface FieldPart extends Written {
  kind: 'field';
  name: string;
  prefix?: BinaryPrefix;
}

/**
 * A pipeline variable, one value for the whole text: `{{@name}}` reads any of them (@executionId,
 * @highwatermark, @webhookurl, a declared variable…); the reserved ones are also read bare, as
 * reference A writes them in SQL (`@executionId`, `@success`, `@highwatermark`).
 */
export interface VariablePart extends Written {
  kind: 'variable';
  /** Without the `@`, as written. */
  name: string;
  prefix?: BinaryPrefix;
  /** Written without braces. */
  bare?: boolean;
}

/** The variables read bare; any other `@word` is text (an e-mail address, a SQL Server @param). */
const BARE_VARIABLES = new Set(['executionid', 'success', 'highwatermark']);

export interface CallPart extends Written {
  kind: 'call';
  sigil: '#' | '@';
  /** As written (case kept for messages). */
  name: string;
  def: FunctionDef;
  args: Arg[];
  /** Operators (def.raw): the verbatim text between the parentheses, and where it starts. */
  raw?: string;
  rawPos?: Position;
}

export interface Arg {
  parts: Part[];
  /** '' when bare; the quote character when written '…' or "…" (quotes removed, doubled quotes unescaped). */
  quote: '' | "'" | '"';
  /** The bare word null. */
  isNull: boolean;
}

/** `@name(` words other statements own (EXEC ON DB's @pipelinedata()): left in the text as they are. */
const PASSTHROUGH = new Set(['pipelinedata']);

const IDENT_START = /[A-Za-z_]/;
const VARIABLE = /^@([A-Za-z_][A-Za-z0-9_]*)$/;
const IDENT = /[A-Za-z0-9_.]/;
const FIELD = /^\s*(?:(ascii|base64|hex|utf8|unicode)\s*:\s*)?([^{}\r\n]*?[^{}\s][^{}\r\n]*?)\s*$/i;
/**
 * A `{{` and a name that runs into the end of the text or line, a single `}` or a `)` without its
 * `}}`: a field reference missing its closing braces (an error, as in Jinja and Handlebars). Other
 * text that holds `{{` (a PostgreSQL array literal `'{{a,b},{c,d}}'`, `{{"a": 1}}`) is left as it is.
 */
const UNCLOSED_FIELD =
  /\s*(?:(?:ascii|base64|hex|utf8|unicode)\s*:\s*)?@?[A-Za-z_][A-Za-z0-9_.]*[ \t]*(?:\}(?!\})|\)|[\r\n]|$)/iy;

class Parser {
  private readonly positions: PositionCursor;

  constructor(
    private readonly src: string,
    private readonly base: Position | undefined,
    /** The text is a composite format string (FunctionDef.compositeFormat): `{{` may be a brace escape. */
    private readonly composite = false,
  ) {
    this.positions = new PositionCursor(base, src);
  }

  pos(i: number): Position | undefined {
    return this.positions.at(i);
  }

  error(message: string, i: number): ScriptError {
    return new ScriptError(message, 'syntax', this.pos(i));
  }

  /**
   * Parses from `i` to the end (mode 'all') or to a `,`/`)` at depth 0 (mode 'arg'). `level` is how
   * many calls enclose the text (bounded by NESTING_LIMIT: parsing and binding recurse per call).
   */
  parts(i: number, mode: 'all' | 'arg', level: number): { parts: Part[]; end: number } {
    const src = this.src;
    const parts: Part[] = [];
    let text = '';
    let depth = 0;
    const flush = () => {
      if (text) parts.push({ kind: 'text', text });
      text = '';
    };
    while (i < src.length) {
      const c = src[i];
      if (mode === 'arg' && depth === 0 && (c === ',' || c === ')')) break;
      if ((c === '#' || c === '@') && IDENT_START.test(src[i + 1] ?? '')) {
        let j = i + 1;
        while (j < src.length && IDENT.test(src[j])) j++;
        if (src[j] === '(') {
          const name = src.slice(i + 1, j);
          if (!(c === '@' && PASSTHROUGH.has(name.toLowerCase()))) {
            flush();
            if (level >= NESTING_LIMIT) throw this.error(NESTED_TOO_DEEPLY, i);
            const call = this.call(c, name, i, j + 1, level + 1);
            call.part.length = call.end - i;
            parts.push(call.part);
            i = call.end;
            continue;
          }
        }
        // A sentence may end right after a variable: `… run @executionId.`
        let end = j;
        while (src[end - 1] === '.') end--;
        const name = src.slice(i + 1, end);
        if (c === '@' && BARE_VARIABLES.has(name.toLowerCase())) {
          flush();
          parts.push({ kind: 'variable', name, bare: true, pos: this.pos(i), length: end - i });
          i = end;
          continue;
        }
        text += src.slice(i, j);
        i = j;
        continue;
      }
      if (c === '{' && src[i + 1] === '{') {
        if (this.composite && !IDENT_START.test(src[i + 2] ?? '')) {
          // .NET's escape, left for the composite formatter to turn into one brace.
          text += '{{';
          i += 2;
          continue;
        }
        const close = src.indexOf('}}', i + 2);
        const m = close < 0 ? null : FIELD.exec(src.slice(i + 2, close));
        if (!m && !this.composite) {
          UNCLOSED_FIELD.lastIndex = i + 2;
          if (UNCLOSED_FIELD.test(src)) {
            throw this.error("missing '}}' to close this '{{' (a field is written {{name}})", i);
          }
        }
        if (m) {
          flush();
          const prefix = m[1]?.toLowerCase() as BinaryPrefix | undefined;
          const variable = VARIABLE.exec(m[2]);
          const written = { pos: this.pos(i), length: close + 2 - i };
          parts.push(
            variable
              ? { kind: 'variable', name: variable[1], prefix, ...written }
              : { kind: 'field', name: m[2], prefix, ...written },
          );
          i = close + 2;
          continue;
        }
      }
      if (mode === 'arg') {
        if (c === '(') depth++;
        else if (c === ')') depth--;
      }
      text += c;
      i++;
    }
    flush();
    return { parts, end: i };
  }

  /** `start` is at the sigil, `i` just after `(`; `level` counts this call. */
  call(sigil: '#' | '@', name: string, start: number, i: number, level: number): { part: CallPart; end: number } {
    const def = findFunction(name);
    if (!def) {
      const hint = suggestFunction(name);
      throw this.error(`unknown function ${sigil}${name}${hint ? `; did you mean ${sigil}${hint}?` : ''}`, start);
    }
    const part: CallPart = { kind: 'call', sigil, name, def, args: [], pos: this.pos(start) };
    if (def.raw) {
      const close = this.matchingParen(i, def.raw.quotes, `${sigil}${name}`, start);
      part.raw = this.src.slice(i, close);
      part.rawPos = this.pos(i);
      return { part, end: close + 1 };
    }
    const src = this.src;
    let j = skipSpace(src, i);
    if (src[j] === ')') return { part, end: j + 1 };
    for (;;) {
      j = skipSpace(src, j);
      const arg = this.arg(j, `${sigil}${name}`, start, def.compositeFormat === part.args.length, level);
      part.args.push(arg.arg);
      j = arg.end;
      if (src[j] === ',') {
        j++;
        continue;
      }
      if (src[j] === ')') return { part, end: j + 1 };
      throw this.error(`${sigil}${name}: missing ')'`, start);
    }
  }

  arg(i: number, fn: string, callStart: number, composite: boolean, level: number): { arg: Arg; end: number } {
    const src = this.src;
    const q = src[i];
    if (q === "'" || q === '"') {
      let j = i + 1;
      let content = '';
      for (;;) {
        if (j >= src.length) throw this.error(`${fn}: unclosed ${q} in an argument`, i);
        if (src[j] === q) {
          if (src[j + 1] === q) {
            content += q;
            j += 2;
            continue;
          }
          break;
        }
        content += src[j++];
      }
      const after = skipSpace(src, j + 1);
      if (src[after] !== ',' && src[after] !== ')') {
        throw this.error(`${fn}: expected ',' or ')' after the quoted argument`, after);
      }
      // The quoted content is itself a template: fields and calls inside quotes still count.
      const inner = new Parser(content, this.pos(i + 1), composite).parts(0, 'all', level).parts;
      return { arg: { parts: inner, quote: q, isNull: false }, end: after };
    }
    const { parts, end } = (composite === this.composite ? this : new Parser(this.src, this.base, composite)).parts(
      i,
      'arg',
      level,
    );
    if (end >= src.length) throw this.error(`${fn}: missing ')'`, callStart);
    trimTrailing(parts);
    const isNull = parts.length === 1 && parts[0].kind === 'text' && parts[0].text.toLowerCase() === 'null';
    return { arg: { parts: isNull ? [] : parts, quote: '', isNull }, end };
  }

  /** Index of the `)` closing an operator's argument; parentheses inside `quotes` do not count. */
  matchingParen(i: number, quotes: string, fn: string, start: number): number {
    const src = this.src;
    let depth = 0;
    let inQuote = '';
    for (let j = i; j < src.length; j++) {
      const c = src[j];
      if (inQuote) {
        if (c === inQuote) inQuote = '';
      } else if (quotes.includes(c)) inQuote = c;
      else if (c === '(') depth++;
      else if (c === ')') {
        if (depth === 0) return j;
        depth--;
      }
    }
    throw this.error(`${fn}: missing ')'`, start);
  }
}

function skipSpace(src: string, i: number): number {
  while (i < src.length && (src[i] === ' ' || src[i] === '\t' || src[i] === '\r' || src[i] === '\n')) i++;
  return i;
}

function trimTrailing(parts: Part[]): void {
  const last = parts[parts.length - 1];
  if (last?.kind !== 'text') return;
  last.text = last.text.trimEnd();
  if (!last.text) parts.pop();
}

/** Parses a template text; `base` is where it starts in the cell, for error positions. */
export function parseTemplate(text: string, base?: Position): Part[] {
  return new Parser(text, base).parts(0, 'all', 0).parts;
}
