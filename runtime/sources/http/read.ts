import { parseDocument, valueAtPath, type DocKind } from '../../docpath';
import { documentKind } from '../tx';
import { Pager } from './paging';
import {
  checkStatus,
  decodeBody,
  describeCall,
  sendHttp,
  type CallContext,
  type HttpRequest,
  type HttpResponse,
} from '../../http/request';

/** One response of a paged read, with its text and document parsed once, on first use. */
export class Page {
  private decoded?: string;
  private parsed?: { root: unknown; kind: DocKind };

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
    if (!this.parsed) {
      const kind = documentKind(this.text(), this.response.mediaType, this.call);
      this.parsed = { root: parseDocument(this.text(), kind, this.call, this.floatDecimal), kind };
    }
    return this.parsed;
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
 * Requests page after page as the pager directs, handing each to `onPage`, which returns how many
 * records it held and whether to stop (APPLY PIPELINE BREAK_ON_EMPTY). Status 400+ stops with an error.
 */
export async function readPages(
  request: HttpRequest,
  pager: Pager,
  call: CallContext,
  floatDecimal: boolean,
  onPage: (page: Page) => Promise<{ records: () => number; stop: boolean }>,
): Promise<void> {
  let url: URL | undefined = pager.start();
  while (url) {
    const response = await sendHttp({ ...request, url }, call);
    checkStatus(response, request.method, url);
    const page = new Page(url, response, describeCall(request.method, url), floatDecimal);
    const { records, stop } = await onPage(page);
    if (stop || call.signal.aborted) return;
    url = pager.next(url, {
      response,
      records,
      valueAt: (path) => valueAtPath(page.document().root, page.document().kind, path),
    });
  }
}
