import Decimal from 'decimal.js';
import { decimalText } from '../../dataset/decimal-scale';
import { INVARIANT, type Culture } from './culture';
import { FormatCache } from './format-cache';

/**
 * .NET numeric formatting (reference.md B.2): standard formats C D E F G N P X R with precision, and
 * custom formats (0 # . , % ‰ E+0 sections ; literals). Doubles follow .NET Core 3.0+: shortest
 * round-trip text by default, exact-value rounding with ties away from zero for fixed-point formats;
 * custom formats first take 15 significant digits, as .NET does. Decimal and bigint values stay exact.
 * Format strings are compiled once to a list of parts and cached.
 */
export type Numeric = number | bigint | Decimal;

export class FormatError extends Error {}

/** Sign, integer digits (no leading zeros; '0' for zero) and fraction digits. */
interface Digits {
  neg: boolean;
  int: string;
  frac: string;
}

const D0 = Decimal.clone({ precision: 1000, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -9e15, toExpPos: 9e15 });

function isDecimal(x: Numeric): x is Decimal {
  return typeof x === 'object';
}

/** Exact digits of a finite value rounded half away from zero to `frac` decimals. */
function fixedDigits(x: Numeric, frac: number): Digits {
  if (typeof x === 'bigint') return { neg: x < 0n, int: (x < 0n ? -x : x).toString(), frac: '0'.repeat(frac) };
  if (isDecimal(x)) {
    // System.Decimal formats a value that rounds to zero without its sign; only doubles keep -0.
    const d = splitFixed(new D0(x.toString()).toFixed(frac), x.isNegative());
    return isZeroDigits(d) ? { ...d, neg: false } : d;
  }
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  if (a < 1e21) {
    if (frac <= 100) return splitFixed(a.toFixed(frac), neg);
    return splitFixed(a.toFixed(100) + '0'.repeat(frac - 100), neg);
  }
  // Beyond 1e21 toFixed switches to exponents; such doubles are integers, exact as bigint.
  return { neg, int: BigInt(a).toString(), frac: '0'.repeat(frac) };
}

function splitFixed(s: string, neg: boolean): Digits {
  if (s.startsWith('-')) s = s.slice(1);
  const dot = s.indexOf('.');
  return dot < 0 ? { neg, int: s, frac: '' } : { neg, int: s.slice(0, dot), frac: s.slice(dot + 1) };
}

/** Significant digits (no leading zeros) and decimal exponent: value = 0.d1d2… × 10^(exp+1). */
interface Sci {
  neg: boolean;
  digits: string;
  exp: number;
}

/** `sig` significant digits rounded half away from zero; sig 0 means the shortest round-trip digits. */
function sciDigits(x: Numeric, sig: number): Sci {
  let s: string;
  let neg: boolean;
  if (typeof x === 'number') {
    neg = x < 0 || Object.is(x, -0);
    s = sig > 0 ? Math.abs(x).toExponential(Math.min(sig, 101) - 1) : Math.abs(x).toExponential();
  } else {
    const d = new D0(x.toString());
    neg = d.isNegative() && !d.isZero();
    s = sig > 0 ? d.abs().toExponential(sig - 1) : d.abs().toExponential();
  }
  const e = s.indexOf('e');
  const digits = s.slice(0, e).replace('.', '');
  return { neg, digits, exp: parseInt(s.slice(e + 1), 10) };
}

function groupInt(int: string, sep: string): string {
  if (int.length <= 3) return int;
  let out = int.slice(0, ((int.length - 1) % 3) + 1);
  for (let i = out.length; i < int.length; i += 3) out += sep + int.slice(i, i + 3);
  return out;
}

function isZeroDigits(d: Digits): boolean {
  return /^0*$/.test(d.int) && /^0*$/.test(d.frac);
}

function nonFinite(x: number, c: Culture): string {
  return Number.isNaN(x) ? c.nan : x > 0 ? c.positiveInfinity : c.negativeInfinity;
}

function isIntegral(x: Numeric): boolean {
  return typeof x === 'bigint';
}

/** Default text of a double: .NET's ToString() (shortest round-trip, E notation from 1E+15 or below 1E-05). */
export function formatGeneral(x: number, c: Culture = INVARIANT): string {
  if (!Number.isFinite(x)) return nonFinite(x, c);
  if (Number.isInteger(x) && Math.abs(x) < 1e15) {
    if (Object.is(x, -0)) return `${c.negative}0`;
    return x < 0 ? c.negative + String(-x) : String(x);
  }
  return generalFromSci(sciDigits(x, 0), 15, 'E', c, true);
}

/** G formatting of significant digits: fixed when -5 < exp < threshold, else d.dddE+XX. */
function generalFromSci(s: Sci, threshold: number, e: string, c: Culture, trimZeros: boolean): string {
  let digits = trimZeros ? s.digits.replace(/0+$/, '') || '0' : s.digits;
  const sign = s.neg ? c.negative : '';
  if (digits === '0') return `${sign}0`;
  if (s.exp > -5 && s.exp < threshold) {
    let int: string;
    let frac: string;
    if (s.exp >= 0) {
      digits = digits.padEnd(s.exp + 1, '0');
      int = digits.slice(0, s.exp + 1);
      frac = digits.slice(s.exp + 1);
    } else {
      int = '0';
      frac = '0'.repeat(-s.exp - 1) + digits;
    }
    return sign + int + (frac ? c.decimal + frac : '');
  }
  const mant = digits.length > 1 ? digits[0] + c.decimal + digits.slice(1) : digits;
  const ex = Math.abs(s.exp);
  return `${sign}${mant}${e}${s.exp < 0 ? '-' : '+'}${ex < 10 ? '0' : ''}${ex}`;
}

// ------------------------------------------------------------------------- standard formats

type StandardFn = (x: Numeric, c: Culture) => string;

function currencyPattern(n: string, neg: boolean, c: Culture): string {
  const s = c.currency;
  if (!neg) return [`${s}${n}`, `${n}${s}`, `${s} ${n}`, `${n} ${s}`][c.currencyPositive] ?? `${s}${n}`;
  const patterns = [
    `(${s}${n})`,
    `-${s}${n}`,
    `${s}-${n}`,
    `${s}${n}-`,
    `(${n}${s})`,
    `-${n}${s}`,
    `${n}-${s}`,
    `${n}${s}-`,
    `-${n} ${s}`,
    `-${s} ${n}`,
  ];
  return (patterns[c.currencyNegative] ?? `-${s}${n}`).replace('-', c.negative);
}

function percentPattern(n: string, neg: boolean, c: Culture): string {
  const p = c.percent;
  if (!neg) return [`${n} ${p}`, `${n}${p}`, `${p}${n}`, `${p} ${n}`][c.percentPositive] ?? `${n} ${p}`;
  return ([`-${n} ${p}`, `-${n}${p}`, `-${p}${n}`][c.percentNegative] ?? `-${n} ${p}`).replace('-', c.negative);
}

function fixedText(d: Digits, group: boolean, c: Culture): string {
  const int = group ? groupInt(d.int, c.group) : d.int;
  return d.frac ? int + c.decimal + d.frac : int;
}

/** Moves the decimal point right by `places` (P format: ×100 without binary rounding error). */
function scaleDigits(x: Numeric, places: number, frac: number): Digits {
  if (typeof x === 'number') {
    const d = sciDigits(x, 0);
    const dec = new D0(`${d.neg ? '-' : ''}0.${d.digits}e${d.exp + 1 + places}`);
    return splitFixed(dec.toFixed(frac), d.neg);
  }
  return fixedDigits(isDecimal(x) ? x.times(10 ** places) : x * 10n ** BigInt(places), frac);
}

function standard(letter: string, precision: number | undefined, integral: boolean): StandardFn | undefined {
  switch (letter) {
    case 'C':
    case 'c':
      return (x, c) => {
        const d = fixedDigits(x, precision ?? 2);
        return currencyPattern(fixedText(d, true, c), d.neg && !isZeroDigits(d), c);
      };
    case 'D':
    case 'd':
      return (x, c) => {
        if (!integral && !(typeof x === 'number' && Number.isInteger(x)))
          throw new FormatError(`format ${letter} is for integers`);
        const d = fixedDigits(x, 0);
        return (d.neg && d.int !== '0' ? c.negative : '') + d.int.padStart(precision ?? 0, '0');
      };
    case 'E':
    case 'e':
      return (x, c) => {
        const s = sciDigits(x, (precision ?? 6) + 1);
        const exp = s.digits.replace(/0/g, '') === '' ? 0 : s.exp;
        const mant = s.digits.length > 1 ? s.digits[0] + c.decimal + s.digits.slice(1) : s.digits;
        return `${s.neg ? c.negative : ''}${mant}${letter}${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(3, '0')}`;
      };
    case 'F':
    case 'f':
      return (x, c) => {
        const d = fixedDigits(x, precision ?? 2);
        return (d.neg ? c.negative : '') + fixedText(d, false, c);
      };
    case 'N':
    case 'n':
      return (x, c) => {
        const d = fixedDigits(x, precision ?? 2);
        return (d.neg ? c.negative : '') + fixedText(d, true, c);
      };
    case 'P':
    case 'p':
      return (x, c) => {
        const d = scaleDigits(x, 2, precision ?? 2);
        return percentPattern(fixedText(d, true, c), d.neg, c);
      };
    case 'G':
    case 'g':
    case 'R':
    case 'r':
      return (x, c) => {
        const e = letter === 'g' || letter === 'r' ? 'e' : 'E';
        if (typeof x === 'number' && (precision === undefined || precision === 0 || letter === 'R' || letter === 'r')) {
          return e === 'E' ? formatGeneral(x, c) : formatGeneral(x, c).replace('E', 'e');
        }
        if (precision === undefined || precision === 0) {
          // Integers and decimals print all their digits, a decimal's trailing zeros included.
          const d = fixedDigits(x, 0);
          const text = isDecimal(x) ? unsignedDecimalText(x) : d.int;
          const neg = isDecimal(x) ? x.isNegative() && !x.isZero() : d.neg;
          return (neg ? c.negative : '') + text.replace('.', c.decimal);
        }
        return generalFromSci(sciDigits(x, precision), precision, e, c, true);
      };
    case 'X':
    case 'x':
      return (x) => {
        if (!integral && !(typeof x === 'number' && Number.isInteger(x)))
          throw new FormatError(`format ${letter} is for integers`);
        let n = typeof x === 'bigint' ? x : BigInt(x as number);
        // Negative integers print as two's complement of their .NET width (Int32, else Int64).
        if (n < 0n) n += n >= -(2n ** 31n) ? 2n ** 32n : 2n ** 64n;
        const hex = n.toString(16).padStart(precision ?? 0, '0');
        return letter === 'X' ? hex.toUpperCase() : hex;
      };
  }
  return undefined;
}

// ------------------------------------------------------------------------- custom formats

type Token =
  | { t: 'digit'; zero: boolean }
  | { t: 'point' }
  | { t: 'group' }
  | { t: 'percent' }
  | { t: 'permille' }
  | { t: 'exp'; upper: boolean; plus: boolean; minDigits: number }
  | { t: 'lit'; s: string };

interface Section {
  tokens: Token[];
  intPlaceholders: number;
  minInt: number;
  minFrac: number;
  maxFrac: number;
  grouping: boolean;
  /** Powers of ten to move the point: +2 per %, +3 per ‰, −3 per scaling comma. */
  shift: number;
  exp?: { upper: boolean; plus: boolean; minDigits: number };
  hasDigits: boolean;
}

function tokenize(fmt: string): Token[][] {
  const sections: Token[][] = [[]];
  let cur = sections[0];
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i];
    switch (ch) {
      case '0':
      case '#':
        cur.push({ t: 'digit', zero: ch === '0' });
        break;
      case '.':
        cur.push({ t: 'point' });
        break;
      case ',':
        cur.push({ t: 'group' });
        break;
      case '%':
        cur.push({ t: 'percent' });
        break;
      case '\u2030':
        cur.push({ t: 'permille' });
        break;
      case 'E':
      case 'e': {
        let j = i + 1;
        let plus = false;
        if (fmt[j] === '+' || fmt[j] === '-') {
          plus = fmt[j] === '+';
          j++;
        }
        let n = 0;
        while (fmt[j + n] === '0') n++;
        if (n > 0) {
          cur.push({ t: 'exp', upper: ch === 'E', plus, minDigits: n });
          i = j + n - 1;
        } else cur.push({ t: 'lit', s: ch });
        break;
      }
      case ';':
        cur = [];
        sections.push(cur);
        break;
      case '\\':
        if (i + 1 < fmt.length) cur.push({ t: 'lit', s: fmt[++i] });
        break;
      case "'":
      case '"': {
        const end = fmt.indexOf(ch, i + 1);
        const s = end < 0 ? fmt.slice(i + 1) : fmt.slice(i + 1, end);
        cur.push({ t: 'lit', s });
        i = end < 0 ? fmt.length : end;
        break;
      }
      default:
        cur.push({ t: 'lit', s: ch });
    }
  }
  return sections;
}

function analyze(tokens: Token[]): Section {
  const s: Section = {
    tokens,
    intPlaceholders: 0,
    minInt: 0,
    minFrac: 0,
    maxFrac: 0,
    grouping: false,
    shift: 0,
    hasDigits: false,
  };
  let inFrac = false;
  let firstZero = -1;
  let digitsBefore = 0;
  let pendingCommas = 0;
  let afterExp = false;
  for (const tok of tokens) {
    if (afterExp) continue;
    switch (tok.t) {
      case 'digit':
        s.hasDigits = true;
        if (inFrac) {
          s.maxFrac++;
          if (tok.zero) s.minFrac = s.maxFrac;
        } else {
          if (pendingCommas > 0 && digitsBefore > 0) s.grouping = true;
          pendingCommas = 0;
          if (tok.zero && firstZero < 0) firstZero = digitsBefore;
          digitsBefore++;
        }
        break;
      case 'group':
        if (!inFrac) pendingCommas++;
        break;
      case 'point':
        if (!inFrac) {
          s.shift -= 3 * pendingCommas;
          pendingCommas = 0;
          inFrac = true;
        }
        break;
      case 'percent':
        s.shift += 2;
        break;
      case 'permille':
        s.shift += 3;
        break;
      case 'exp':
        if (!s.exp) s.exp = { upper: tok.upper, plus: tok.plus, minDigits: tok.minDigits };
        afterExp = true;
        break;
      case 'lit':
        break;
    }
  }
  if (!inFrac) s.shift -= 3 * pendingCommas;
  s.intPlaceholders = digitsBefore;
  s.minInt = firstZero < 0 ? 0 : digitsBefore - firstZero;
  return s;
}

/** Custom formats take 15 significant digits of a double first (.NET's DoublePrecisionCustomFormat). */
function customDecimal(x: Numeric): Decimal {
  if (typeof x === 'number') return new D0(x === 0 ? '0' : x.toPrecision(15));
  return new D0(x.toString());
}

/** `signedZero`: the value is a double, whose sign .NET Core keeps when it rounds to zero (-0.00). */
function renderSection(sec: Section, value: Decimal, signed: boolean, c: Culture, signedZero = false): string {
  let v = sec.shift ? value.times(new D0(10).pow(sec.shift)) : value;
  let expText = '';
  if (sec.exp) {
    let exp = 0;
    if (!v.isZero()) {
      const intDigits = Math.max(sec.intPlaceholders, 1);
      let e = v.abs().e - (intDigits - 1);
      v = v.times(new D0(10).pow(-e)).toDecimalPlaces(sec.maxFrac);
      // Rounding may carry into one more integer digit (9.99 → 10.0).
      if (v.abs().gte(new D0(10).pow(intDigits))) {
        v = v.div(10).toDecimalPlaces(sec.maxFrac);
        e++;
      }
      exp = e;
    }
    const ex = String(Math.abs(exp)).padStart(sec.exp.minDigits, '0');
    expText = (sec.exp.upper ? 'E' : 'e') + (exp < 0 ? '-' : sec.exp.plus ? '+' : '') + ex;
  }
  const fixed = v.abs().toFixed(sec.maxFrac);
  const dot = fixed.indexOf('.');
  let int = dot < 0 ? fixed : fixed.slice(0, dot);
  let frac = dot < 0 ? '' : fixed.slice(dot + 1);
  while (frac.length > sec.minFrac && frac.endsWith('0')) frac = frac.slice(0, -1);
  if (int === '0') int = '';
  if (int.length < sec.minInt) int = int.padStart(sec.minInt, '0');
  const roundsToZero = signedZero ? v.isZero() && !sec.hasDigits : /^[0.]*$/.test(fixed);
  const neg = signed && value.isNegative() && !roundsToZero;

  let out = '';
  let placeholder = 0;
  let fracIndex = 0;
  let inFrac = false;
  let expDone = false;
  const n = sec.intPlaceholders;
  const L = int.length;
  const emitInt = (d: number) => {
    // d = position of this digit counted from the right of the integer part.
    out += int[L - 1 - d];
    if (sec.grouping && d > 0 && d % 3 === 0) out += c.group;
  };
  for (const tok of sec.tokens) {
    switch (tok.t) {
      case 'digit':
        if (inFrac) {
          if (fracIndex < frac.length) out += frac[fracIndex];
          fracIndex++;
        } else {
          const d = n - 1 - placeholder;
          if (placeholder === 0) for (let k = L - 1; k > d; k--) emitInt(k);
          if (d < L) emitInt(d);
          placeholder++;
        }
        break;
      case 'point':
        if (!inFrac) {
          inFrac = true;
          if (frac.length > 0) out += c.decimal;
        }
        break;
      case 'group':
        break;
      case 'percent':
        out += c.percent;
        break;
      case 'permille':
        out += '\u2030';
        break;
      case 'exp':
        if (!expDone) out += expText;
        expDone = true;
        break;
      case 'lit':
        out += tok.s;
        break;
    }
  }
  if (!sec.hasDigits && L > 0) out = int + out;
  return neg ? c.negative + out : out;
}

function custom(fmt: string): (x: Numeric, c: Culture) => string {
  const sections = tokenize(fmt).map(analyze);
  return (x, c) => {
    if (typeof x === 'number' && !Number.isFinite(x)) return nonFinite(x, c);
    const value = customDecimal(x);
    if (sections.length === 1) return renderSection(sections[0], value, true, c, typeof x === 'number');
    const pos = sections[0];
    const negSec = sections[1].tokens.length ? sections[1] : undefined;
    const zeroSec = sections[2]?.tokens.length ? sections[2] : undefined;
    const rounded = value.times(new D0(10).pow(pos.shift)).toDecimalPlaces(pos.exp ? 15 : pos.maxFrac);
    if (rounded.isZero() && zeroSec) return renderSection(zeroSec, value.abs(), false, c);
    if (value.isNegative() && !rounded.isZero())
      return negSec
        ? renderSection(negSec, value.abs(), false, c)
        : renderSection(pos, value, true, c, typeof x === 'number');
    return renderSection(pos, value.abs(), false, c);
  };
}

// ------------------------------------------------------------------------- entry point

type Compiled = (x: Numeric, c: Culture) => string;
const compiled = new FormatCache<Compiled>();
const STANDARD = /^([CcDdEeFfGgNnPpRrXx])(\d{0,3})$/;

function compile(format: string): Compiled {
  const m = STANDARD.exec(format);
  if (m) {
    const precision = m[2] === '' ? undefined : parseInt(m[2], 10);
    const intFn = standard(m[1], precision, true)!;
    const numFn = standard(m[1], precision, false)!;
    return (x, c) => {
      if (typeof x === 'number' && !Number.isFinite(x)) return nonFinite(x, c);
      return isIntegral(x) ? intFn(x, c) : numFn(x, c);
    };
  }
  if (/^[A-Za-z]\d*$/.test(format))
    throw new FormatError(
      `'${format}' is not a numeric format (standard: C D E F G N P R X with optional precision 0-999)`,
    );
  return custom(format);
}

/** Formats a number with a .NET numeric format string ('' = general). */
export function formatNumber(x: Numeric, format: string, culture: Culture = INVARIANT): string {
  if (format === '') return typeof x === 'number' ? formatGeneral(x, culture) : standardGeneral(x, culture);
  const f = compiled.get(format) ?? compiled.remember(format, compile(format));
  return f(x, culture);
}

function standardGeneral(x: Numeric, c: Culture): string {
  if (typeof x === 'bigint') return x < 0n ? c.negative + (-x).toString() : x.toString();
  const d = x as Decimal;
  const text = unsignedDecimalText(d).replace('.', c.decimal);
  return d.isNegative() && !d.isZero() ? c.negative + text : text;
}

/** The digits of a decimal at its scale, without the sign (abs() would drop the scale). */
function unsignedDecimalText(d: Decimal): string {
  const text = decimalText(d);
  return text.startsWith('-') ? text.slice(1) : text;
}
