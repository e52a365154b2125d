import { FormatCache } from './format-cache';
import { FormatError } from './number';

/**
 * .NET composite format strings: `{index[,alignment][:format]}` items, `{{` and `}}` for braces.
 * Compiled once per string into literal and item parts; the caller formats each item's value.
 */
export type CompositePart = string | { index: number; align: number; format: string };

const cache = new FormatCache<CompositePart[]>();

/** The index and the alignment of an item are below a million, as in .NET. */
const ITEM_LIMIT = 1_000_000;

export function compileComposite(text: string): CompositePart[] {
  return cache.get(text) ?? cache.remember(text, parseComposite(text));
}

function parseComposite(text: string): CompositePart[] {
  const parts: CompositePart[] = [];
  let lit = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '}') {
      if (text[i + 1] !== '}') throw new FormatError(`'${text}': a lone '}' at ${i + 1} (write }} for a brace)`);
      lit += '}';
      i++;
      continue;
    }
    if (ch !== '{') {
      lit += ch;
      continue;
    }
    if (text[i + 1] === '{') {
      lit += '{';
      i++;
      continue;
    }
    const close = text.indexOf('}', i);
    if (close < 0) throw new FormatError(`'${text}': '{' at ${i + 1} is not closed`);
    const m = /^\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?(?::(.*))?$/s.exec(text.slice(i + 1, close));
    if (!m)
      throw new FormatError(
        `'${text}': '${text.slice(i, close + 1)}' is not a format item ({index[,alignment][:format]})`,
      );
    const index = parseInt(m[1], 10);
    const width = m[2] ? parseInt(m[2], 10) : 0;
    // .NET's own limits (StringBuilder.AppendFormat): a wider item would not fit in a string anyway.
    if (index >= ITEM_LIMIT || Math.abs(width) >= ITEM_LIMIT)
      throw new FormatError(
        `'${text}': '${text.slice(i, close + 1)}' has an index or alignment beyond ${ITEM_LIMIT - 1} (the .NET limit)`,
      );
    if (lit) parts.push(lit);
    lit = '';
    parts.push({ index, align: width, format: m[3] ?? '' });
    i = close;
  }
  if (lit) parts.push(lit);
  return parts;
}

/** Pads to the alignment: positive right-aligns, negative left-aligns. */
export function align(s: string, width: number): string {
  if (width === 0) return s;
  return width > 0 ? s.padStart(width) : s.padEnd(-width);
}
