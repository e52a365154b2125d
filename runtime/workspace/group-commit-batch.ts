import type { EntryKind } from './journal';

/** A file, or lines to append to one, as the group commit's thread receives it. */
export interface ToPublish {
  id: number;
  kind: EntryKind;
  /** Absolute. */
  path: string;
  /** A view of the batch's one transferred buffer. */
  data: Uint8Array;
  mode?: number;
  /**
   * The id of the file handed over just before this line, which the line speaks for (a call's run
   * record beside its log): the line is appended only if that file is put in place.
   */
  after?: number;
}

/**
 * The same as the event loop hands it over, its bytes still in the parts its writer made; a text
 * part (a run record's line) is encoded as UTF-8 straight into the batch.
 */
export interface Outgoing extends Omit<ToPublish, 'data' | 'after'> {
  parts: readonly (Uint8Array | string)[];
  /** Appended only if the item before it is put in place (ToPublish.after). */
  withPrevious?: boolean;
}

const sizeOf = (part: Uint8Array | string): number =>
  typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length;

/**
 * Per item: id u32 · kind u8 (WITH_PREVIOUS set for Outgoing.withPrevious) · mode u32 · path bytes
 * u32 · data bytes u32, then the path's UTF-8 and the data.
 */
const FIXED = 17;
const WITH_PREVIOUS = 0x80;
const NO_MODE = 0xffffffff;

/**
 * A batch as one buffer, moved rather than copied to the thread. Structured cloning an object per
 * item, with its paths, cost the event loop more per call than the rest of handing it over.
 */
export function encodeBatch(items: readonly Outgoing[]): ArrayBuffer {
  let total = 0;
  for (const item of items) {
    total += FIXED + Buffer.byteLength(item.path);
    for (const part of item.parts) total += sizeOf(part);
  }
  const out = Buffer.from(new ArrayBuffer(total));
  let at = 0;
  for (const item of items) {
    let size = 0;
    for (const part of item.parts) size += sizeOf(part);
    out.writeUInt32LE(item.id, at);
    out[at + 4] = item.withPrevious ? item.kind | WITH_PREVIOUS : item.kind;
    out.writeUInt32LE(item.mode ?? NO_MODE, at + 5);
    const pathBytes = out.write(item.path, at + FIXED, 'utf8');
    out.writeUInt32LE(pathBytes, at + 9);
    out.writeUInt32LE(size, at + 13);
    at += FIXED + pathBytes;
    for (const part of item.parts) {
      if (typeof part === 'string') at += out.write(part, at, 'utf8');
      else {
        out.set(part, at);
        at += part.length;
      }
    }
  }
  return out.buffer;
}

export function decodeBatch(buffer: ArrayBuffer): ToPublish[] {
  const b = Buffer.from(buffer);
  const items: ToPublish[] = [];
  for (let at = 0; at < b.length;) {
    const mode = b.readUInt32LE(at + 5);
    const pathBytes = b.readUInt32LE(at + 9);
    const size = b.readUInt32LE(at + 13);
    const dataAt = at + FIXED + pathBytes;
    const item: ToPublish = {
      id: b.readUInt32LE(at),
      kind: b[at + 4] & ~WITH_PREVIOUS,
      path: b.toString('utf8', at + FIXED, dataAt),
      data: b.subarray(dataAt, dataAt + size),
    };
    if (mode !== NO_MODE) item.mode = mode;
    if (b[at + 4] & WITH_PREVIOUS) item.after = items[items.length - 1].id;
    items.push(item);
    at = dataAt + size;
  }
  return items;
}
