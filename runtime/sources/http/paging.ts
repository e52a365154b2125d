import { ScriptError, type Position } from '../../errors';
import type { PagingMode } from '../../script/ast';
import type { HttpResponse } from '../../http/request';

/** No paged read requests more pages than this: a loop always ends, even against a faulty API. */
export const MAX_PAGES = 10_000;

export interface PagingSpec {
  mode: PagingMode;
  /** Query parameter carrying the offset, page number or token. */
  param?: string;
  /** Where the body holds the next link or token. */
  path?: string;
  /** Where the script wrote `path`. */
  pathPos?: Position;
  pos?: Position;
}

/** What the pager learns from a page. */
export interface PageFacts {
  response: HttpResponse;
  /** Records on the page (rows after APPLY TX); 0 ends offset and page paging. Asked only then. */
  records(): number;
  /** The value at PAGING_PATH (written at `pos`) in the body, or null. */
  valueAt(path: string, pos?: Position): string | null;
}

const DEFAULT_PARAM: Partial<Record<PagingMode, string>> = { offset: 'offset', page: 'page', token: 'token' };

/** The spec, checked before any call: a statement whose calls are made later fails before the first. */
export function checkPaging(spec: PagingSpec): PagingSpec {
  if (spec.mode === 'token' && !spec.path) {
    throw new ScriptError(
      "PAGING 'token' needs PAGING_PATH: where the response holds the next token",
      'semantic',
      spec.pos,
    );
  }
  return spec;
}

/**
 * The URL of each page:
 * - none: one request;
 * - offset: PAGING_PARAM (default `offset`, starting at the URL's value or 0) grows by the records of
 *   each page, until a page has none;
 * - page: PAGING_PARAM (default `page`, starting at the URL's value or 1) grows by one, until a page
 *   has no records;
 * - link: the next URL is the value at PAGING_PATH, or the Link header's rel="next", until there is
 *   none (relative links resolve against the page's URL);
 * - token: the value at PAGING_PATH (required) is sent as PAGING_PARAM (default `token`) on the
 *   first URL, until there is none.
 * Paging also stops when a page repeats the previous body (offset, page) or a link/token comes back
 * (link, token), and after MAX_PAGES pages (`truncated` then says so).
 */
export class Pager {
  private readonly param: string;
  private pages = 0;
  private counter?: number;
  private previousBody?: Buffer;
  private readonly seen = new Set<string>();
  truncated = false;

  constructor(
    private readonly spec: PagingSpec,
    private readonly first: URL,
  ) {
    this.param = checkPaging(spec).param ?? DEFAULT_PARAM[spec.mode] ?? '';
  }

  /** The URL of the first page. */
  start(): URL {
    return this.first;
  }

  /** The URL of the page after the one described, or undefined when paging is over. */
  next(current: URL, page: PageFacts): URL | undefined {
    this.pages++;
    const next = this.follow(current, page);
    if (next && this.pages >= MAX_PAGES) {
      this.truncated = true;
      return undefined;
    }
    return next;
  }

  private follow(current: URL, page: PageFacts): URL | undefined {
    switch (this.spec.mode) {
      case 'none':
        return undefined;
      case 'offset':
      case 'page': {
        const records = page.records();
        if (records === 0 || this.repeats(page.response.body)) return undefined;
        const start = this.spec.mode === 'offset' ? 0 : 1;
        const written = current.searchParams.get(this.param);
        const value = this.counter ?? (written !== null && /^\d+$/.test(written) ? Number(written) : start);
        this.counter = value + (this.spec.mode === 'offset' ? records : 1);
        const url = new URL(current.href);
        url.searchParams.set(this.param, String(this.counter));
        return url;
      }
      case 'link': {
        const link = this.spec.path
          ? page.valueAt(this.spec.path, this.spec.pathPos)
          : nextLink(page.response.headers['link']);
        if (!link) return undefined;
        const url = new URL(link, current);
        return this.once(url.href) ? url : undefined;
      }
      case 'token': {
        const token = page.valueAt(this.spec.path!, this.spec.pathPos);
        if (!token || !this.once(token)) return undefined;
        const url = new URL(this.first.href);
        url.searchParams.set(this.param, token);
        return url;
      }
    }
  }

  private repeats(body: Buffer): boolean {
    const same = this.previousBody !== undefined && this.previousBody.equals(body);
    this.previousBody = body;
    return same;
  }

  private once(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
}

/** The rel="next" target of a Link header (RFC 8288), or undefined. */
export function nextLink(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (m && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/i.test(m[2])) return m[1];
  }
  return undefined;
}
