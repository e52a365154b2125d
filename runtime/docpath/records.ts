import type { Node } from '@xmldom/xmldom';
import { stringifyJson } from './json';
import { firstField, partLabel, type DocKind, type PathPart } from './path';
import { jsonRecord, jsonRecordNodes, selectJson } from './select-json';
import { selectXml, type XmlItem } from './select-xml';
import { elementToRecord, isElement, nodeToRecord, serializeXml } from './xml';

/** What the record assembly needs from a document model (parsed JSON or an XML DOM). */
interface Model<N> {
  select(context: N, part: PathPart): N[];
  record(node: N, exclude?: string): Record<string, unknown>;
  raw(node: N): string;
}

const jsonModel: Model<unknown> = {
  select: (context, part) => jsonRecordNodes(selectJson(context, part)),
  record: jsonRecord,
  raw: (node) => (typeof node === 'string' ? node : stringifyJson(node)),
};

const xmlModel: Model<XmlItem> = {
  select: (context, part) => selectXml(context as Node, part),
  record: (item, exclude) =>
    typeof item === 'string' ? { value: item } : isElement(item) ? elementToRecord(item, exclude) : nodeToRecord(item),
  raw: (item) => (typeof item === 'string' ? item : isElement(item) ? serializeXml(item) : (item.nodeValue ?? '')),
};

export interface DocumentRecords {
  records: Record<string, unknown>[];
  /** Raw text of each record's node (RAWCOL), when asked for. */
  raws?: string[];
}

/**
 * The records a path selects. With `a || b`, each record of `a` is joined with each record `b`
 * selects under it (parent fields repeated per child, the field `b` descends into left out); a parent
 * with no child keeps one row with the child columns empty (left join). A child field named like a
 * parent field is renamed `<child label>.<name>` (`items.id`).
 */
export function documentRecords(
  root: unknown,
  kind: DocKind,
  parts: readonly PathPart[],
  withRaw: boolean,
): DocumentRecords {
  const model = kind === 'xml' ? xmlModel : jsonModel;
  interface Row {
    record: Record<string, unknown>;
    /** The node the next part descends from; undefined once a parent had no child. */
    node: unknown;
    /** The innermost node found, for RAWCOL. */
    last: unknown;
  }
  let rows: Row[] = model
    .select(root, parts[0])
    .map((n) => ({ record: model.record(n, parts.length > 1 ? firstField(parts[1]) : undefined), node: n, last: n }));
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i];
    const exclude = i + 1 < parts.length ? firstField(parts[i + 1]) : undefined;
    const label = partLabel(part);
    const next: Row[] = [];
    for (const row of rows) {
      const children = row.node === undefined ? [] : model.select(row.node, part);
      if (children.length === 0) {
        next.push({ record: row.record, node: undefined, last: row.last });
        continue;
      }
      for (const c of children)
        next.push({ record: merge(row.record, model.record(c, exclude), label), node: c, last: c });
    }
    rows = next;
  }
  return {
    records: rows.map((r) => r.record),
    raws: withRaw ? rows.map((r) => model.raw(r.last)) : undefined,
  };
}

function merge(
  parent: Record<string, unknown>,
  child: Record<string, unknown>,
  label: string,
): Record<string, unknown> {
  // Without a prototype, a field named "__proto__" (a JSON key, data) is a field, not out's prototype.
  const out = Object.create(null) as Record<string, unknown>;
  const taken = new Set<string>();
  for (const k in parent) {
    out[k] = parent[k];
    taken.add(k.toLowerCase());
  }
  for (const k in child) out[taken.has(k.toLowerCase()) ? `${label}.${k}` : k] = child[k];
  return out;
}
