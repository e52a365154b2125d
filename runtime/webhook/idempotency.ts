import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonLines } from '../util/json-lines';

/** How long a call's answer is kept for a repeat of its `webhook-id` or `Idempotency-Key`. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Answers are filed by the hour their call came in: a file whose hour left the window is removed whole. */
const HOUR_MS = 60 * 60 * 1000;
/**
 * A running listener looks for files to remove when it first files an answer under a new hour, and
 * after this many answers besides, so that one whose clock jumped is not left with expired files.
 */
const TRIM_AFTER_LINES = 256;
/** `2026-11-27T00.jsonl`: the hour (UTC) of the answers a file holds. */
const FILE_NAME = /^(\d{4}-\d{2}-\d{2}T\d{2})\.jsonl$/;

export interface Answer {
  status: number;
  body: unknown;
}

interface Entry {
  key: string;
  at: number;
  /** SHA-256 of the payload, base64; absent in lines written before it was kept. */
  payload?: string;
  answer: Answer;
}

/** What a call with an idempotency key gets: the answer, whether it is a repeat's, or a conflict. */
export type Remembered = { answer: Answer; repeated: boolean } | { conflict: true };

/** The fingerprint of a payload: a key is bound to the payload it first came with. */
const payloadDigest = (body: Buffer) => createHash('sha256').update(body).digest('base64');

/**
 * Answers of calls that carried an idempotency key, by job and key: a repeat within 24 h gets the
 * first call's answer and writes no second change log. A repeat that arrives while the first call is
 * still running waits for it. Answers are appended durably to `<workspace>/webhook/idempotency/`, one
 * file per hour of arrival (`2026-11-27T00.jsonl`), and read back at start, so a restarted listener
 * still knows them. A file whose hour is wholly older than the window is removed, at start and while
 * the listener runs; no file is ever rewritten, so two listeners on one workspace never lose a line
 * the other appends (a rewrite between another process's read and rename would). A key comes with
 * one payload: sent again with another, it is a conflict (the IETF Idempotency-Key draft's 422),
 * never the first call's answer.
 */
export class IdempotencyStore {
  private readonly answers = new Map<string, { at: number; payload?: string; answer: Promise<Answer> }>();
  private readonly folder: string;
  /** The file of each hour answers were filed under by this process, by hour number since 1970. */
  private readonly files = new Map<number, JsonLines<Entry>>();
  /** The hour of the last answer filed, and answers filed since the last look for expired files. */
  private hour = 0;
  private appended = 0;
  /** The look for expired files under way, if any: one at a time. */
  private trimming = Promise.resolve();

  /** The store of a workspace, its expired files removed. */
  static async open(workspace: string): Promise<IdempotencyStore> {
    const store = new IdempotencyStore(workspace);
    await store.trim();
    return store;
  }

  private constructor(workspace: string) {
    this.folder = join(workspace, 'webhook', 'idempotency');
    const since = Date.now() - IDEMPOTENCY_WINDOW_MS;
    const live = (e: Entry) => e.at >= since;
    // The older answers first: `prune` drops from the front until it meets a live one.
    this.migrate(join(workspace, 'webhook', 'idempotency.jsonl'), live);
    for (const name of existsSync(this.folder) ? readdirSync(this.folder).sort() : []) {
      const hour = hourOf(name);
      // An expired hour's file is left to `trim`, which `open` runs next.
      if (hour === undefined || expired(hour)) continue;
      for (const e of this.fileOf(hour).read().filter(live)) this.remember(e);
    }
  }

  /**
   * The answer for `key`: the remembered one, or what `call` answers. A call that throws (the
   * listener could not answer at all), or whose answer says it left nothing (`kept` is false: a
   * malformed payload's 400), is not remembered: its repeat, the payload corrected, runs again.
   */
  async answer(
    key: string,
    body: Buffer,
    call: () => Promise<Answer>,
    kept: (answer: Answer) => boolean,
  ): Promise<Remembered> {
    const now = Date.now();
    const payload = payloadDigest(body);
    const known = this.answers.get(key);
    if (known && known.at >= now - IDEMPOTENCY_WINDOW_MS) {
      if (known.payload !== undefined && known.payload !== payload) return { conflict: true };
      return { answer: await known.answer, repeated: true };
    }
    const pending = call();
    this.answers.set(key, { at: now, payload, answer: pending });
    let answer: Answer;
    try {
      answer = await pending;
    } catch (e) {
      this.answers.delete(key);
      throw e;
    }
    if (!kept(answer)) {
      this.answers.delete(key);
      return { answer, repeated: false };
    }
    const hour = Math.floor(now / HOUR_MS);
    await this.fileOf(hour).append({ key, at: now, payload, answer });
    this.prune(now);
    if (hour !== this.hour || ++this.appended >= TRIM_AFTER_LINES) {
      this.hour = hour;
      this.appended = 0;
      // Not waited for by the call: removing files delays no answer; one that fails goes at the next look.
      this.trimming = this.trimming.then(() => this.trim()).catch(() => {});
    }
    return { answer, repeated: false };
  }

  /** Resolves once a look for expired files under way is done (the listener stops). */
  close(): Promise<void> {
    return this.trimming;
  }

  private fileOf(hour: number): JsonLines<Entry> {
    let file = this.files.get(hour);
    if (!file) {
      file = new JsonLines<Entry>(join(this.folder, `${new Date(hour * HOUR_MS).toISOString().slice(0, 13)}.jsonl`));
      this.files.set(hour, file);
    }
    return file;
  }

  private remember(e: Entry): void {
    this.answers.set(e.key, { at: e.at, payload: e.payload, answer: Promise.resolve(e.answer) });
  }

  /** Removes the files whose every answer left the window, whoever wrote them. */
  private async trim(): Promise<void> {
    const names = await readdir(this.folder).catch((e: NodeJS.ErrnoException) => {
      // No answer was ever filed in this workspace.
      if (e.code === 'ENOENT') return [];
      throw e;
    });
    for (const name of names) {
      const hour = hourOf(name);
      if (hour === undefined || !expired(hour)) continue;
      this.files.delete(hour);
      await unlink(join(this.folder, name)).catch((e: NodeJS.ErrnoException) => {
        // Removed by another listener meanwhile.
        if (e.code !== 'ENOENT') throw e;
      });
    }
  }

  /**
   * The single file of earlier versions (`webhook/idempotency.jsonl`): its live answers are still
   * known; nothing is appended to it any more, and once none is live it goes.
   */
  private migrate(legacy: string, live: (e: Entry) => boolean): void {
    if (!existsSync(legacy)) return;
    const entries = new JsonLines<Entry>(legacy).read().filter(live);
    for (const e of entries) this.remember(e);
    if (entries.length === 0) rmSync(legacy, { force: true });
  }

  private prune(now: number): void {
    const since = now - IDEMPOTENCY_WINDOW_MS;
    for (const [k, v] of this.answers) {
      if (v.at >= since) break;
      this.answers.delete(k);
    }
  }
}

/** The hour number of an answers file's name, or undefined for another file (a lock, a temp file). */
function hourOf(name: string): number | undefined {
  const m = FILE_NAME.exec(name);
  return m ? Date.parse(`${m[1]}:00:00Z`) / HOUR_MS : undefined;
}

/** Whether every answer an hour's file can hold is older than the window. */
const expired = (hour: number) => (hour + 1) * HOUR_MS <= Date.now() - IDEMPOTENCY_WINDOW_MS;
