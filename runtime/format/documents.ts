import type { DocFormat } from '../script/ast';

/**
 * Complete documents from row fragments (ZIP COLUMN … FORMAT …): a JSON array, an XML document
 * under a `<root>` element, or CSV lines with one header line. Missing fragments (null) are left out.
 */
export const XML_ROOT = 'root';

export function buildDocument(format: DocFormat, fragments: readonly string[]): string {
  switch (format) {
    case 'JSON':
      return `[${fragments.join(',')}]`;
    case 'XML':
      return `<?xml version="1.0" encoding="utf-8"?><${XML_ROOT}>${fragments.join('')}</${XML_ROOT}>`;
    case 'CSV':
      return csvDocument(fragments);
  }
}

/**
 * CSV fragments written with `headers:1` each start with the same header line; the document keeps
 * it once. Fragments without a shared first line are data lines only. Lines end with CRLF (RFC 4180).
 */
function csvDocument(fragments: readonly string[]): string {
  if (fragments.length === 0) return '';
  const firstBreak = fragments[0].indexOf('\r\n');
  const header = firstBreak < 0 ? undefined : fragments[0].slice(0, firstBreak + 2);
  const shared = header !== undefined && fragments.every((f) => f.startsWith(header));
  const body = shared ? fragments.map((f) => f.slice(header.length)) : fragments;
  return (shared ? header : '') + body.join('\r\n') + '\r\n';
}
