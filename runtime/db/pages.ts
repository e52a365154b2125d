import { ColumnBuilder } from '../dataset/column-builder';

/**
 * A query's rows gathered into pages by column: at most `pageRows` a page (the inline pipeline's
 * page), or every row in one page when nothing runs per page, which spares stacking pages afterwards.
 * The driver's rows arrive in fetches or batches; between them the engine yields to the event loop.
 */
export class PageBuffer {
  private builder: ColumnBuilder;
  private handedOver = false;

  constructor(
    private readonly width: number,
    private readonly pageRows: number,
  ) {
    this.builder = new ColumnBuilder(width);
  }

  /** Rows the page can still take. */
  get room(): number {
    return this.pageRows - this.builder.count;
  }

  /** Makes room for `rows` more rows (at most `room`). */
  reserve(rows: number): void {
    this.builder.reserve(Math.min(rows, this.room));
  }

  /** Adds a row of the driver's (after `reserve`). */
  add(row: readonly unknown[]): void {
    const r = this.builder.count++;
    const data = this.builder.data;
    for (let c = 0; c < this.width; c++) data[c][r] = row[c] as never;
  }

  /**
   * The page's column arrays and row count, and a new page begun; undefined when the page is empty
   * and another was handed over before (a result without rows is still one empty page).
   */
  take(): { columns: unknown[][]; rows: number } | undefined {
    const rows = this.builder.count;
    if (rows === 0 && this.handedOver) return undefined;
    this.handedOver = true;
    const columns = this.builder.finish();
    this.builder = new ColumnBuilder(this.width);
    return { columns, rows };
  }
}
