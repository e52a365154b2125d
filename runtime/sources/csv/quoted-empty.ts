/**
 * The fields of one record's text written as two quotes (`""`): an empty string, where an empty
 * field is null (PostgreSQL COPY … CSV, docs/sources.md). papaparse gives both as '', so a record
 * holding an empty field is read again here, field by field as papaparse splits it: a field that
 * starts with the quote runs to its closing quote (doubled quotes inside), then to the delimiter.
 */
export function quotedEmptyFields(record: string, delimiter: string, quote: string): Set<number> {
  const found = new Set<number>();
  let at = 0;
  for (let field = 0; ; field++) {
    if (record.startsWith(quote, at)) {
      let close = at + 1;
      for (;;) {
        close = record.indexOf(quote, close);
        if (close < 0) return found;
        if (record.startsWith(quote, close + 1)) close += 2;
        else break;
      }
      if (close === at + 1) found.add(field);
      at = close + 1;
    }
    const next = record.indexOf(delimiter, at);
    if (next < 0) return found;
    at = next + delimiter.length;
  }
}
