/**
 * Jupyter (protocol ≥ 5.2) counts cursor positions in Unicode code points; JavaScript strings index
 * UTF-16 code units. The two differ only after a character outside the BMP (emoji, some CJK).
 */
export function toUtf16Offset(text: string, codePoints: number): number {
  let units = 0;
  for (let cp = 0; cp < codePoints && units < text.length; cp++) {
    units += (text.codePointAt(units) ?? 0) > 0xffff ? 2 : 1;
  }
  return Math.min(units, text.length);
}

export function toCodePointOffset(text: string, units: number): number {
  let cp = 0;
  for (let i = 0; i < units && i < text.length; cp++) i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  return cp;
}
