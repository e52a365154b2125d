import { jsonRowWriter } from '../dataset/render';
import { typeName } from '../dataset/type-names';
import { ChangeLogReader, type ReadOptions, type StreamName } from './read';

/** Where the document goes, piece by piece; a promise makes the writer wait (a stream's backpressure). */
export type TextSink = (text: string) => void | Promise<void>;

/**
 * `sqlcdc changelog show FILE --output json`: one JSON object,
 * `{"executionId", "pipeline", "keys", "schema", "upserts": [rows], "deletes": [rows]}`, rows as
 * `sqlcdc run --output json` prints them (exact longs and decimals, dates as text, bytes in hex).
 * Written a page at a time, so a log of any size is shown in bounded memory; when the log turns
 * out damaged or its signature fails after the last page, the error comes after partial output.
 */
export async function writeChangeLogJson(path: string, write: TextSink, options: ReadOptions = {}): Promise<void> {
  const reader = ChangeLogReader.open(path, options);
  const h = reader.header;
  const schema = h.schema.map((c) => ({
    name: c.name,
    type: typeName(c.type),
    ...(c.description ? { description: c.description } : {}),
  }));
  const head = { executionId: h.executionId, pipeline: h.pipeline, keys: h.keys, schema };
  await write(`${JSON.stringify(head).slice(0, -1)},"upserts":[`);
  const row = jsonRowWriter(h.schema);
  let stream: StreamName = 'upserts';
  let first = true;
  for await (const page of reader.pages()) {
    if (page.stream !== stream) {
      await write('],"deletes":[');
      stream = page.stream;
      first = true;
    }
    const read = page.data.reader();
    const rows = new Array<string>(page.data.rowCount);
    for (let r = 0; r < rows.length; r++) rows[r] = row(read(r));
    await write(`${first ? '' : ','}${rows.join(',')}`);
    first = false;
  }
  await write(stream === 'upserts' ? '],"deletes":[]}\n' : ']}\n');
}
