import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { jsonLine, JsonLines } from '../util/json-lines';
import { writeFileAtomic } from '../workspace/files';

/** How long a call's answer is kept for a repeat of its `webhook-id` or `Idempotency-Key`. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A running listener trims the file once it has appended as many lines as it kept at its last trim,
 * and at least this many: the file stays within about twice a day of answers, and each line costs
 * a bounded share of one rewrite.
 */
const TRIM_AFTER_LINES = 256;

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
 * still running waits for it. Answers are appended durably to `<workspace>/webhook/idempotency.jsonl`
 * and read back at start, so a restarted listener still knows them; lines older than the window are
 * dropped from the file then and while it runs (`trim`; rewritten atomically), so it holds what a day
 * or two of calls left rather than every call the workspace ever took. A key comes with one payload: sent again with another, it is a conflict (the IETF
 * Idempotency-Key draft's 422), never the first call's answer.
 */
export class IdempotencyStore {
  private readonly answers = new Map<string, { at: number; payload?: string; answer: Promise<Answer> }>();
  private readonly file: JsonLines<Entry>;
  /** Lines in the file after its last trim, and appended since. */
  private kept: number;
  private appended = 0;

  constructor(workspace: string) {
    this.file = new JsonLines<Entry>(join(workspace, 'webhook', 'idempotency.jsonl'));
    const since = Date.now() - IDEMPOTENCY_WINDOW_MS;
    const entries = this.file.read();
    const live = entries.filter((e) => e.at >= since);
    for (const e of live) this.answers.set(e.key, { at: e.at, payload: e.payload, answer: Promise.resolve(e.answer) });
    if (live.length < entries.length) writeFileAtomic(this.file.file, live.map(jsonLine).join(''));
    this.kept = live.length;
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
    await this.file.append({ key, at: now, payload, answer });
    this.prune(now);
    if (++this.appended >= Math.max(TRIM_AFTER_LINES, this.kept)) await this.trim();
    return { answer, repeated: false };
  }

  /**
   * Drops the expired lines from the file while the listener runs (it may run for weeks), atomically
   * and in turn with the appends. The call that reaches the count waits for it; a trim that fails
   * leaves the file longer, not wrong.
   */
  private async trim(): Promise<void> {
    this.appended = 0;
    try {
      this.kept = await this.file.keepOnly((e) => e.at >= Date.now() - IDEMPOTENCY_WINDOW_MS);
    } catch {
      // Tried again after as many appends.
    }
  }

  private prune(now: number): void {
    const since = now - IDEMPOTENCY_WINDOW_MS;
    for (const [k, v] of this.answers) {
      if (v.at >= since) break;
      this.answers.delete(k);
    }
  }
}
