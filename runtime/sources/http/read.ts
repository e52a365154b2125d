import { valueAtPath, type DocKind } from '../../docpath';
import { ScriptError, type Position } from '../../errors';
import type { PagingValue } from '../files/shape-thread';
import { parseAnswer } from './answer';
import { Pager } from './paging';
import { decodeBody, describeCall, requestAt, type HttpRequest, type HttpResponse } from '../../http/request';

/** One response of a paged read, with its text and document parsed once, on first use. */
export class Page {
  private decoded?: string;
  private parsed?: { root: unknown; kind: DocKind };
  /** The value at PAGING_PATH, read where the document was shaped (a worker thread): then it is not parsed here. */
  private paged?: { path: string; value: PagingValue };

  constructor(
    readonly url: URL,
    readonly response: HttpResponse,
    readonly call: string,
    /** JSON fractions will be typed as decimals: their written scale is kept (`12.50`). */
    private readonly floatDecimal = false,
  ) {}

  text(): string {
    return (this.decoded ??= decodeBody(this.response));
  }

  document(): { root: unknown; kind: DocKind } {
    return (this.parsed ??= parseAnswer(this.text(), this.response.mediaType, this.call, this.floatDecimal));
  }

  /** The value at `path` (PAGING_PATH, written at `pos`), or null; an empty page has none. */
  valueAt(path: string, pos?: Position): string | null {
    if (this.isEmpty()) return null;
    if (this.paged?.path === path) {
      const known = this.paged.value;
      if ('value' in known) return known.value;
      throw new ScriptError(known.error.message, known.error.kind, known.error.position);
    }
    const { root, kind } = this.document();
    return valueAtPath(root, kind, path, pos);
  }

  /** What the thread that shaped this page read at `path` (valueAt then answers with it). */
  knowValueAt(path: string, value: PagingValue): void {
    this.paged = { path, value };
  }

  /** No body, or only blanks. */
  isEmpty(): boolean {
    return this.text().trim() === '';
  }

  /** Records of a body read without APPLY TX: a JSON array's elements; empty, [], {} or null: none. */
  bodyRecords(): number {
    const text = this.text().trim();
    if (text === '' || text === '[]' || text === '{}' || text === 'null') return 0;
    if (text.startsWith('[')) {
      const root = this.document().root;
      return Array.isArray(root) ? root.length : 1;
    }
    return 1;
  }
}

/**
 * Sends the request of one page: its response (status below 400), or undefined when the call failed
 * and the statement lets that through (CONTINUE_ON_*): the read then stops there.
 */
export type PageSender = (request: HttpRequest) => Promise<HttpResponse | undefined>;

/**
 * Requests page after page as the pager directs, handing each to `onPage`, which returns how many
 * records it held and whether to stop (APPLY PIPELINE BREAK_ON_EMPTY, a page let through).
 */
export async function readPages(
  request: HttpRequest,
  pager: Pager,
  send: PageSender,
  signal: AbortSignal,
  floatDecimal: boolean,
  onPage: (page: Page) => Promise<{ records: () => number; stop: boolean }>,
): Promise<void> {
  let url: URL | undefined = pager.start();
  while (url) {
    const pageRequest = requestAt(request, url);
    const response = await send(pageRequest);
    if (!response) return;
    const page = new Page(url, response, describeCall(pageRequest), floatDecimal);
    const { records, stop } = await onPage(page);
    if (stop || signal.aborted) return;
    url = pager.next(url, {
      response,
      records,
      valueAt: (path, pos) => page.valueAt(path, pos),
    });
  }
}
