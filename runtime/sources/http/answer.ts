import { parseDocument, type DocKind } from '../../docpath';
import { looksLikeLines, parseLines } from '../files/load';
import { documentKind } from '../tx';

/** Media types of newline-delimited JSON. */
const NDJSON = /ndjson|jsonl/;

/**
 * An HTTP answer's document: JSON or XML by its media type, else by its first character. NDJSON
 * answers (exports, streams) are read as NDJSON files are: one record a line. `call` names it in errors.
 */
export function parseAnswer(
  text: string,
  mediaType: string,
  call: string,
  floatDecimal: boolean,
): { root: unknown; kind: DocKind } {
  const kind = documentKind(text, mediaType, call);
  const lines = kind === 'json' && (NDJSON.test(mediaType) || looksLikeLines(text));
  return {
    root: lines ? parseLines(text, call, floatDecimal) : parseDocument(text, kind, call, floatDecimal),
    kind,
  };
}
