import { createHash } from 'node:crypto';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import Decimal from 'decimal.js';
import { parseDecimal } from '../dataset/decimal-scale';
import type { Value } from '../dataset/types';
import { cultureOf, formatWall } from './dates';
import { define, ENCODINGS } from './define';
import { align, compileComposite } from './dotnet-format/composite';
import { parseDateLoose } from './dotnet-format/date';
import { FormatError, formatNumber } from './dotnet-format/number';
import { image2pdf } from './pdf';
import { percentEncode } from '../util/percent';
import { FunctionError, type CallContext, type FunctionDef } from './types';
import { bytesOf, decodeText, displayValue, integer, text, type TextEncoding } from './values';

const S = define.bind(null, 'string');

function nonNegative(v: Value, what: string): number {
  const n = integer(v, what);
  if (n < 0) throw new FunctionError(`${what} must be 0 or more, got ${n}`);
  return n;
}

function hexBytes(s: string): Buffer {
  const clean = s.trim().replace(/^0x/i, '');
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean))
    throw new FunctionError(`'${clean.slice(0, 40)}' is not hexadecimal`);
  return Buffer.from(clean, 'hex');
}

function base64Bytes(s: string): Buffer {
  const clean = s.trim();
  if (!/^[A-Za-z0-9+/\-_\s]*={0,2}$/.test(clean)) throw new FunctionError(`'${clean.slice(0, 40)}' is not Base64`);
  return Buffer.from(clean, 'base64');
}

function inflate(bytes: Buffer, gzip: boolean): Buffer {
  try {
    return gzip ? gunzipSync(bytes) : inflateSync(bytes);
  } catch (e) {
    throw new FunctionError(`not ${gzip ? 'GZip' : 'zlib'} data (${(e as Error).message})`);
  }
}

/** The compress/zip, base64/hex and hash families: one entry per encoding suffix, generated. */
function encodingFamilies(): FunctionDef[] {
  const out: FunctionDef[] = [];
  for (const { suffix, encoding, label } of ENCODINGS) {
    const enc = encoding;
    const roundTrip = (fn: string, inverse: string) => `#${inverse}${suffix}(#${fn}${suffix}(hello))`;
    out.push(
      S(
        `compress${suffix}`,
        `#compress${suffix}(a)`,
        1,
        `zlib compression of the ${label} bytes of a; the result is the compressed bytes as lowercase hexadecimal.`,
        `#compress${suffix}(hello)`,
        zlibHex('hello', enc),
        (args) => (args[0] === null ? null : deflateSync(bytesOf(args[0], enc)).toString('hex')),
      ),
      S(
        `uncompress${suffix}`,
        `#uncompress${suffix}(a)`,
        1,
        `Inverse of #compress${suffix}: hexadecimal zlib bytes to ${label} text.`,
        roundTrip('compress', 'uncompress'),
        'hello',
        (args) =>
          args[0] === null
            ? null
            : decodeText(
                inflate(args[0] instanceof Uint8Array ? Buffer.from(args[0]) : hexBytes(text(args[0])), false),
                enc,
              ),
      ),
      S(
        `zip${suffix}`,
        `#zip${suffix}(a)`,
        1,
        `GZip compression of the ${label} bytes of a; the result is Base64.`,
        `#unzip${suffix}(#zip${suffix}(hello))`,
        'hello',
        (args) => (args[0] === null ? null : gzipSync(bytesOf(args[0], enc)).toString('base64')),
      ),
      S(
        `unzip${suffix}`,
        `#unzip${suffix}(a)`,
        1,
        `Inverse of #zip${suffix}: Base64 GZip bytes to ${label} text.`,
        roundTrip('zip', 'unzip'),
        'hello',
        (args) =>
          args[0] === null
            ? null
            : decodeText(
                inflate(args[0] instanceof Uint8Array ? Buffer.from(args[0]) : base64Bytes(text(args[0])), true),
                enc,
              ),
      ),
      S(
        `tobase64${suffix}`,
        `#tobase64${suffix}(a)`,
        1,
        `Base64 of the ${label} bytes of a (binary values: their bytes).`,
        `#tobase64${suffix}(hello)`,
        bytesOf('hello', enc).toString('base64'),
        (args) => (args[0] === null ? null : bytesOf(args[0], enc).toString('base64')),
      ),
      S(
        `frombase64${suffix}`,
        `#frombase64${suffix}(a)`,
        1,
        `Base64 to ${label} text.`,
        `#frombase64${suffix}(${bytesOf('hello', enc).toString('base64')})`,
        'hello',
        (args) => (args[0] === null ? null : decodeText(base64Bytes(text(args[0])), enc)),
      ),
      S(
        `tohex64${suffix}`,
        `#tohex64${suffix}(a)`,
        1,
        `Lowercase hexadecimal of the ${label} bytes of a.`,
        `#tohex64${suffix}(hi)`,
        bytesOf('hi', enc).toString('hex'),
        (args) => (args[0] === null ? null : bytesOf(args[0], enc).toString('hex')),
      ),
      S(
        `fromhex64${suffix}`,
        `#fromhex64${suffix}(a)`,
        1,
        `Hexadecimal to ${label} text.`,
        `#fromhex64${suffix}(${bytesOf('hi', enc).toString('hex')})`,
        'hi',
        (args) => (args[0] === null ? null : decodeText(hexBytes(text(args[0])), enc)),
      ),
    );
    for (const alg of ['md5', 'sha1', 'sha256', 'sha384', 'sha512']) {
      out.push(
        S(
          `hash_${alg}${suffix}`,
          `#hash_${alg}${suffix}(a)`,
          1,
          `${alg.toUpperCase()} of the ${label} bytes of a, lowercase hexadecimal.`,
          `#hash_${alg}${suffix}(abc)`,
          createHash(alg).update(bytesOf('abc', enc)).digest('hex'),
          (args) => (args[0] === null ? null : createHash(alg).update(bytesOf(args[0], enc)).digest('hex')),
        ),
      );
    }
  }
  return out;
}

function zlibHex(s: string, enc: TextEncoding): string {
  return deflateSync(bytesOf(s, enc)).toString('hex');
}

// ------------------------------------------------------------------------------ #format

const NUMERIC_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * One composite item: numbers with numeric formats, dates with date formats. Text that reads as a
 * number (or a date) is formatted as one, because template arguments arrive as text.
 */
function formatItem(v: Value, format: string, ctx: CallContext): string {
  if (v === null) return '';
  if (format === '') return displayValue(v);
  const culture = cultureOf(ctx.scope.session);
  if (typeof v === 'number' || typeof v === 'bigint' || Decimal.isDecimal(v)) return formatNumber(v, format, culture);
  if (v instanceof Date) return formatWall(ctx.scope.session, v, format, 'unspecified');
  if (typeof v === 'string') {
    if (NUMERIC_TEXT.test(v)) {
      const t = v.trim();
      // Integers stay exact (bigint), decimals keep their digits; exponent notation reads as a double.
      const n = /^[+-]?\d+$/.test(t) ? BigInt(t) : /e/i.test(t) ? Number(t) : parseDecimal(t);
      return formatNumber(n, format, culture);
    }
    try {
      const parsed = parseDateLoose(v);
      return formatWall(ctx.scope.session, parsed.wall, format, 'unspecified');
    } catch {
      return v;
    }
  }
  return displayValue(v);
}

function composite(args: Value[], ctx: CallContext): string {
  const fmt = text(args[0]);
  try {
    const parts = compileComposite(fmt);
    let out = '';
    for (const p of parts) {
      if (typeof p === 'string') {
        out += p;
        continue;
      }
      if (p.index + 1 >= args.length)
        throw new FunctionError(`{${p.index}} has no argument (${args.length - 1} given)`);
      out += align(formatItem(args[p.index + 1], p.format, ctx), p.align);
    }
    return out;
  } catch (e) {
    if (e instanceof FormatError) throw new FunctionError(`bad format ${e.message}`);
    throw e;
  }
}

// ------------------------------------------------------------------------------ trimming

function trimChars(s: string, chars: string | undefined, left: boolean, right: boolean): string {
  if (chars === undefined) return left && right ? s.trim() : left ? s.trimStart() : s.trimEnd();
  let a = 0;
  let b = s.length;
  if (left) while (a < b && chars.includes(s[a])) a++;
  if (right) while (b > a && chars.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

/**
 * .NET's invariant ToUpper/ToLower map each character to one (Unicode simple case mapping, with İ and ı
 * left as they are): ß stays ß, Σ always lowers to σ. JavaScript applies the full, context-sensitive
 * mapping (STRASSE, a final ς), so a character whose JavaScript mapping changes its length is kept.
 */
function invariantCase(s: string, upper: boolean): string {
  const whole = upper ? s.toUpperCase() : s.toLowerCase();
  if (whole.length === s.length && !s.includes(upper ? 'ı' : 'Σ')) return whole;
  let out = '';
  for (const ch of s) {
    const mapped = ch === 'ı' ? ch : upper ? ch.toUpperCase() : ch.toLowerCase();
    out += mapped.length === ch.length ? mapped : ch;
  }
  return out;
}

/** RFC 3986 percent-encoding of UTF-8 (encodeURIComponent also leaves !'()* alone). */
function urlDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new FunctionError(`'${s.slice(0, 40)}' is not URL-encoded text (bad % sequence)`);
  }
}

function quoteWith(v: Value, q: string): Value {
  if (v === null) return null;
  const s = text(v);
  if (s.length >= 2 && s.startsWith(q) && s.endsWith(q)) return s;
  return q + s + q;
}

const str = (v: Value): string => (v === null ? '' : text(v));

export const stringFunctions: FunctionDef[] = [
  ...encodingFamilies(),
  S(
    'contains',
    '#contains(a, b[, c])',
    [2, 3],
    '1 when b is found in a (searching from index c, 0-based), else 0. Case-sensitive.',
    '#contains(hello world, world)',
    '1',
    (args) => {
      const from = args.length > 2 && args[2] !== null ? nonNegative(args[2], 'the start index (c)') : 0;
      return str(args[0]).indexOf(str(args[1]), from) >= 0 ? 1 : 0;
    },
  ),
  S(
    'indexof',
    '#indexof(a, b[, c])',
    [2, 3],
    'The 0-based index of b in a, searching from index c; -1 when absent. Case-sensitive.',
    '#indexof(hello, l)',
    '2',
    (args) => {
      const from = args.length > 2 && args[2] !== null ? nonNegative(args[2], 'the start index (c)') : 0;
      return str(args[0]).indexOf(str(args[1]), from);
    },
  ),
  S(
    'doublequoted',
    '#doublequoted(a)',
    1,
    'a in double quotes, unless it already is; null stays null.',
    '#doublequoted(abc)',
    '"abc"',
    (args) => quoteWith(args[0], '"'),
  ),
  S(
    'singlequoted',
    '#singlequoted(a)',
    1,
    'a in single quotes, unless it already is; null stays null.',
    '#singlequoted(abc)',
    "'abc'",
    (args) => quoteWith(args[0], "'"),
  ),
  S(
    'unquote',
    '#unquote(a)',
    1,
    'Removes one pair of surrounding single or double quotes.',
    '#unquote({{name}})',
    undefined,
    (args) => {
      if (args[0] === null) return null;
      const s = text(args[0]);
      return s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0] ? s.slice(1, -1) : s;
    },
  ),
  {
    ...S(
      'format',
      '#format(a, b, ...)',
      [1, Infinity],
      'Composite format: {index[,alignment][:format]} items of a are replaced by the following arguments, formatted with .NET numeric or date formats; {{ and }} are braces, except that {{ directly followed by a letter or _ is a field ({{name}}).',
      "#format('{{{0:N2}}} | {1,-5}|', 1234.567, ab)",
      '{1,234.57} | ab   |',
      composite,
    ),
    compositeFormat: 0,
  },
  S('left', '#left(a, n)', 2, 'The first n characters (all of a when shorter).', '#left(hello, 2)', 'he', (args) =>
    str(args[0]).slice(0, nonNegative(args[1], 'n')),
  ),
  S('right', '#right(a, n)', 2, 'The last n characters (all of a when shorter).', '#right(hello, 3)', 'llo', (args) => {
    const s = str(args[0]);
    const n = nonNegative(args[1], 'n');
    return n === 0 ? '' : s.slice(-n);
  }),
  S(
    'len',
    '#len(a)',
    1,
    'The length of a in UTF-16 characters, as .NET counts (0 for null).',
    '#len(hello)',
    '5',
    (args) => str(args[0]).length,
  ),
  S(
    'ltrim',
    '#ltrim(a[, b])',
    [1, 2],
    'Removes leading spaces, or leading characters found in b.',
    '#ltrim(xxabc, x)',
    'abc',
    (args) => trimChars(str(args[0]), args.length > 1 && args[1] !== null ? text(args[1]) : undefined, true, false),
  ),
  S(
    'rtrim',
    '#rtrim(a[, b])',
    [1, 2],
    'Removes trailing spaces, or trailing characters found in b.',
    '#rtrim(abc.., .)',
    'abc',
    (args) => trimChars(str(args[0]), args.length > 1 && args[1] !== null ? text(args[1]) : undefined, false, true),
  ),
  S('trim', '#trim(a)', 1, 'Removes leading and trailing white space.', "#trim('  abc  ')", 'abc', (args) =>
    str(args[0]).trim(),
  ),
  S(
    'replace',
    '#replace(a, b, c)',
    3,
    'Replaces every occurrence of b in a with c (case-sensitive, literal).',
    '#replace(a-b-c, -, +)',
    'a+b+c',
    (args) => {
      const find = str(args[1]);
      if (find === '') throw new FunctionError('the text to replace (b) is empty');
      return str(args[0]).split(find).join(str(args[2]));
    },
  ),
  S(
    'reverse',
    '#reverse(a)',
    1,
    'The characters of a in reverse order (surrogate pairs kept together).',
    '#reverse(abc)',
    'cba',
    (args) => Array.from(str(args[0])).reverse().join(''),
  ),
  S(
    'skip',
    '#skip(a, n)',
    2,
    'Drops the first n characters ("" when a is shorter).',
    '#skip(hello, 2)',
    'llo',
    (args) => str(args[0]).slice(nonNegative(args[1], 'n')),
  ),
  S(
    'singleline',
    '#singleline(a)',
    1,
    'Removes line feeds and carriage returns.',
    '#singleline({{address}})',
    undefined,
    (args) => str(args[0]).replace(/[\r\n]/g, ''),
  ),
  S(
    'substring',
    '#substring(a, b[, c])',
    [2, 3],
    'c characters from index b (0-based); the rest of a without c; "" when b is past the end.',
    '#substring(hello world, 6, 3)',
    'wor',
    (args) => {
      const s = str(args[0]);
      const start = nonNegative(args[1], 'the start index (b)');
      if (start >= s.length) return '';
      return args.length > 2 && args[2] !== null
        ? s.substr(start, nonNegative(args[2], 'the length (c)'))
        : s.slice(start);
    },
  ),
  S(
    'tolower',
    '#tolower(a)',
    1,
    "Lower case as .NET's ToLowerInvariant: one character for one (a final Σ gives σ, İ stays).",
    '#tolower(HeLLo)',
    'hello',
    (args) => (args[0] === null ? null : invariantCase(text(args[0]), false)),
  ),
  S(
    'toupper',
    '#toupper(a)',
    1,
    "Upper case as .NET's ToUpperInvariant: one character for one (ß stays ß, not SS).",
    '#toupper(abc)',
    'ABC',
    (args) => (args[0] === null ? null : invariantCase(text(args[0]), true)),
  ),
  S(
    'urlencode',
    '#urlencode(a)',
    1,
    'Percent-encodes the UTF-8 bytes of a (RFC 3986: letters, digits and -_.~ stay).',
    '#urlencode(a b&c)',
    'a%20b%26c',
    (args) => percentEncode(str(args[0])),
  ),
  S(
    'urldecode',
    '#urldecode(a)',
    1,
    'Decodes percent-encoding; + is a space.',
    '#urldecode(a%20b+c)',
    'a b c',
    (args) => urlDecode(str(args[0])),
  ),
  S(
    'image2pdf',
    '#image2pdf(a)',
    1,
    'A one-page PDF of an image (PNG or JPEG): a is the image bytes (binary or hex), a local file, an http(s) URL or an FTP file (ftp:// or ftps:// URL). Output: the PDF bytes as lowercase hexadecimal.',
    '#image2pdf(logo.png)',
    undefined,
    (args, ctx) => image2pdf(args[0], ctx).toString('hex'),
  ),
  S(
    'image2pdfbase64',
    '#image2pdfbase64(a)',
    1,
    'As #image2pdf, with the PDF bytes in Base64.',
    '#image2pdfbase64(https://example.com/logo.png)',
    undefined,
    (args, ctx) => image2pdf(args[0], ctx).toString('base64'),
  ),
];
