import { join } from 'node:path';
import { JsonLines } from '../util/json-lines';

/** How long a call's answer is kept for a repeat of its `webhook-id` or `Idempotency-Key`. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface Answer {
  status: number;
  body: unknown;
}

interface Entry {
  key: string;
  at: number;
  answer: Answer;
}

/**
 * Answers of calls that carried an idempotency key, by job and key: a repeat within 24 h gets the
 * first call's answer and writes no second change log. A repeat that arrives while the first call is
 * still running waits for it. Answers are appended durably to `<workspace>/webhook/idempotency.jsonl`
 * and read back at start, so a restarted listener still knows them; lines older than the window are
 * ignored then.
 */
export class IdempotencyStore {
  private readonly answers = new Map<string, { at: number; answer: Promise<Answer> }>();
  private readonly file: JsonLines<Entry>;

  constructor(workspace: string) {
    this.file = new JsonLines<Entry>(join(workspace, 'webhook', 'idempotency.jsonl'));
    const since = Date.now() - IDEMPOTENCY_WINDOW_MS;
    for (const e of this.file.read())
      if (e.at >= since) this.answers.set(e.key, { at: e.at, answer: Promise.resolve(e.answer) });
  }

  /**
   * The answer for `key`: the remembered one, or what `call` answers. A call that throws (the
   * listener could not answer at all) is not remembered, so its repeat runs again.
   */
  async answer(key: string, call: () => Promise<Answer>): Promise<{ answer: Answer; repeated: boolean }> {
    const now = Date.now();
    const known = this.answers.get(key);
    if (known && known.at >= now - IDEMPOTENCY_WINDOW_MS) return { answer: await known.answer, repeated: true };
    const pending = call();
    this.answers.set(key, { at: now, answer: pending });
    let answer: Answer;
    try {
      answer = await pending;
    } catch (e) {
      this.answers.delete(key);
      throw e;
    }
    await this.file.append({ key, at: now, answer });
    this.prune(now);
    return { answer, repeated: false };
  }

  private prune(now: number): void {
    const since = now - IDEMPOTENCY_WINDOW_MS;
    for (const [k, v] of this.answers) {
      if (v.at >= since) break;
      this.answers.delete(k);
    }
  }
}
