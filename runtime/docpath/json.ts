import { ScriptError } from '../errors';
import { lineColumn, where } from './location';

/**
 * JSON with exact numbers. JSON.parse turns every number into a double, which silently rounds
 * integers beyond 2^53 and decimals with more than 15 significant digits (reference C.8: exact
 * digits end to end). Node 20 has no reviver source access, so number tokens with 16 or more digits
 * are rewritten into marker strings (`EXACT` + the token text) before JSON.parse; the dataset builder
 * types them as long or decimal from their text. Documents without such numbers (the usual case) are
 * parsed by JSON.parse alone: the rewrite runs only when a quick test finds a long digit run.
 * When fractions are read as decimals (#setjsonsettings floatparsehandling:decimal), a fraction ending
 * in 0 (`12.50`) is kept as text too: a decimal keeps the scale it was written with (docs/types.md),
 * which JSON.parse would drop (12.5).
 */

/** Prefix of a marker string standing for a number token kept as text. */
const EXACT = '\u0000#';

const LONG_DIGITS = /\d{16}/;

export function isExact(v: unknown): v is string {
  return typeof v === 'string' && v.startsWith(EXACT);
}

export function exactText(marker: string): string {
  return marker.slice(EXACT.length);
}

/** A fraction with a trailing zero, somewhere (a string's text too: the rewrite then finds none there). */
const TRAILING_ZERO = /\.\d*0(?![0-9])/;

/**
 * Parses JSON text; `source` names the file or column in errors, `firstLine` numbers its lines;
 * `keepScale` keeps the text of fractions ending in 0, for readers that type fractions as decimals.
 */
export function parseJson(text: string, source?: string, firstLine = 1, keepScale = false): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') throw new ScriptError(`${where(source)}empty document: expected JSON`, 'runtime');
  const prepared =
    LONG_DIGITS.test(body) || (keepScale && TRAILING_ZERO.test(body)) ? markNumbers(body, keepScale) : body;
  try {
    return JSON.parse(prepared);
  } catch (e) {
    // Positions refer to the original text: parse it again unmarked only to locate the error.
    throw jsonError(body, prepared === body ? e : (catchOf(() => JSON.parse(body)) ?? e), firstLine, source);
  }
}

function catchOf(f: () => unknown): unknown {
  try {
    f();
    return undefined;
  } catch (e) {
    return e;
  }
}

/**
 * Rewrites number tokens of 16+ digits, and with `keepScale` fractions ending in 0, into marker strings;
 * strings are skipped as they are.
 */
function markNumbers(text: string, keepScale: boolean): string {
  const parts: string[] = [];
  let last = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      let digits = 0;
      // In the fraction (after `.`, before an exponent), and its last digit is 0.
      let fraction = false;
      let trailingZero = false;
      i++;
      if (c !== 0x2d) digits++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 0x30 && d <= 0x39) {
          digits++;
          if (fraction) trailingZero = d === 0x30;
          i++;
        } else if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) {
          // With an exponent the scale is the exponent's business: only a plain fraction is kept.
          if (d === 0x2e) fraction = true;
          else if (d === 0x65 || d === 0x45) fraction = trailingZero = false;
          i++;
        } else break;
      }
      if (digits >= 16 || (keepScale && trailingZero)) {
        parts.push(text.slice(last, start), '"\\u0000#', text.slice(start, i), '"');
        last = i;
      }
    } else {
      i++;
    }
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join('');
}

/** JSON text of a parsed value, marker strings written back as the numbers they stand for. */
export function stringifyJson(value: unknown): string {
  const s = JSON.stringify(value);
  return s.includes('"\\u0000#') ? s.replace(/"\\u0000#([-+.eE0-9]+)"/g, '$1') : s;
}

/**
 * A ScriptError for a JSON.parse failure with line and column. V8 gives a position for most errors;
 * for "Unexpected token" it quotes ~10 characters around the token instead, which locates it.
 */
function jsonError(text: string, e: unknown, firstLine: number, source?: string): ScriptError {
  const message = e instanceof Error ? e.message : String(e);
  let offset: number | undefined;
  let reason = message.replace(/ in JSON at position \d+.*$/s, '');
  const at = / at position (\d+)/.exec(message);
  if (at) offset = Number(at[1]);
  else if (/Unexpected end of JSON input/.test(message)) offset = text.length;
  else {
    const token = /^Unexpected token '(.+?)', (\.\.\.)?"(.*)"(\.\.\.)? is not valid JSON$/s.exec(message);
    if (token) {
      reason = `unexpected '${token[1]}'`;
      const [, , before, snippet, after] = token;
      if (before) {
        const i = after ? text.indexOf(snippet) : text.length - snippet.length;
        if (i >= 0) offset = i + 10;
      } else if (after) {
        offset = snippet.length - 11;
      }
    }
  }
  const pos =
    offset === undefined
      ? firstLine > 1
        ? ` at line ${firstLine}`
        : ''
      : ` at ${lineColumn(text, offset, firstLine)}`;
  return new ScriptError(`${where(source)}invalid JSON${pos}: ${reason}`, 'runtime');
}
