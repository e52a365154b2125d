import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFailure } from '../workspace/files';

/** A record as its line in the file. */
export function jsonLine(record: unknown): string {
  return `${JSON.stringify(record)}\n`;
}

/**
 * A file of JSON lines appended durably (a job's run records, the listener's idempotency keys).
 * Appends that arrive while a write is under way are written and flushed together (a group commit),
 * so a listener taking many calls pays one fdatasync per batch instead of one per call; each append
 * resolves once its line is on disk. A crash mid-write leaves at most a partial last line, which
 * reading skips; the first line appended after it starts on a line of its own, so that it is not
 * swallowed with it.
 */
export class JsonLines<T> {
  private pending: { line: string; done: () => void; fail: (e: unknown) => void }[] = [];
  private flushing = false;
  /** Whether this file's end was checked for a line a crash tore: only another process can leave one. */
  private endChecked = false;

  constructor(readonly file: string) {}

  append(record: T): Promise<void> {
    return new Promise((done, fail) => {
      this.pending.push({ line: jsonLine(record), done, fail });
      if (!this.flushing) this.flush();
    });
  }

  private flush(): void {
    this.flushing = true;
    // A turn of the event loop lets the appends of calls finishing together join this batch; the
    // appends arriving while it is written wait for the next.
    setImmediate(() => void this.writeBatch());
  }

  /** Never rejects: failures go to the appends they belong to. */
  private async writeBatch(): Promise<void> {
    await this.writeLines(this.pending.splice(0));
    if (this.pending.length > 0) this.flush();
    else this.flushing = false;
  }

  /** Never rejects: a failed write fails the appends of its batch. */
  private async writeLines(batch: typeof this.pending): Promise<void> {
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const file = await open(this.file, 'a+');
      try {
        const lines = batch.map((b) => b.line).join('');
        const bytes = Buffer.from(this.endChecked || (await endsLine(file)) ? lines : `\n${lines}`, 'utf8');
        // A write the disk cuts short says so only by its count (the next one fails): a line must
        // not be reported durable while half of it is in the file.
        for (let at = 0; at < bytes.length;) at += (await file.write(bytes, at)).bytesWritten;
        this.endChecked = true;
        await file.datasync();
      } finally {
        await file.close();
      }
      for (const b of batch) b.done();
    } catch (e) {
      // Part of the batch may be in the file: the next batch looks at its end again.
      this.endChecked = false;
      const failure = writeFailure(this.file, e);
      for (const b of batch) b.fail(failure);
    }
  }

  read(): T[] {
    if (!existsSync(this.file)) return [];
    const out: T[] = [];
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        out.push(JSON.parse(line) as T);
      } catch {
        // the torn last line of a crash
      }
    }
    return out;
  }
}

/** Whether an empty file, or one whose last byte ends a line. */
async function endsLine(file: FileHandle): Promise<boolean> {
  const { size } = await file.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await file.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
