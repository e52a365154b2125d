import type { Column } from '../dataset/types';
import { textWriter } from './cells';
import type { XmlOptions } from './options';
import { flat, type RowWriter } from './row-writer';

/** Characters XML 1.0 does not allow at all (even as references), and the ones that must be escaped. */
const XML_INVALID =
  // eslint-disable-next-line no-control-regex -- the control characters XML forbids are what this finds
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const XML_SPECIAL = /[&<>\r]/;

/** Escapes element content; characters XML cannot carry become U+FFFD (documented). */
export function xmlEscape(s: string): string {
  XML_INVALID.lastIndex = 0;
  const clean = XML_INVALID.test(s) ? s.replace(XML_INVALID, '\ufffd') : s;
  if (!XML_SPECIAL.test(clean)) return clean;
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
}

/**
 * An element name for a column, as .NET's XmlConvert.EncodeLocalName writes it: each character not
 * allowed in a name becomes _xHHHH_ (a space is _x0020_), so any column name gives valid XML; an `_`
 * that would read as the start of such an escape is one itself (_x005F_), so readers decode every name
 * back to the column's.
 */
export function xmlName(name: string): string {
  let out = '';
  let first = true;
  let i = 0;
  for (const ch of name) {
    const ok = first ? /[\p{L}_]/u.test(ch) : /[\u0300-\u036f\p{L}\p{N}_.\-\u00b7\u203f\u2040]/u.test(ch);
    const escapeLike = ch === '_' && /^_x(?:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8})_/.test(name.slice(i));
    out +=
      ok && !escapeLike
        ? ch
        : `_x${ch
            .codePointAt(0)!
            .toString(16)
            .toUpperCase()
            .padStart(ch.length > 1 ? 8 : 4, '0')}_`;
    first = false;
    i += ch.length;
  }
  return out === '' ? '_' : out;
}

/** One element per non-null field, named after its column, optionally wrapped in `options.element`. */
export function xmlElementWriter(
  columns: readonly Column[],
  ordinals: readonly number[],
  options: XmlOptions,
): RowWriter {
  const n = ordinals.length;
  const open = ordinals.map((o) => `<${xmlName(columns[o].name)}>`);
  const close = ordinals.map((o) => `</${xmlName(columns[o].name)}>`);
  const writers = ordinals.map((o) => textWriter(columns[o].type, options));
  const before = options.element ? `<${options.element}>` : '';
  const after = options.element ? `</${options.element}>` : '';
  return (row) => {
    let s = before;
    for (let k = 0; k < n; k++) {
      const v = row[ordinals[k]];
      // .NET's DataSet.WriteXml omits null fields; readers then see the element as missing.
      if (v !== null) s += open[k] + xmlEscape(writers[k](v)) + close[k];
    }
    return flat(s + after);
  };
}
