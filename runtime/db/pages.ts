/**
 * A query's rows gathered into pages by column: at most `pageRows` a page (the inline pipeline's
 * page), or every row in one page when nothing runs per page, which spares stacking pages afterwards.
 * The driver's rows arrive in fetches or batches, between which the engine yields to the event loop;
 * each batch fills arrays of its own size, joined once when the page is taken (growing one array
 * instead would copy every row again at each growth), a slice at a time with turns between.
 */
/** Cells joined between two yields of `PageBuffer.take`. */
const JOIN_SLICE = 1 << 16;

export class PageBuffer {
  private chunks: unknown[][][] = [];
  private current: unknown[][] = [];
  private count = 0;
  private filled = 0;
  private handedOver = false;

  constructor(
    private readonly width: number,
    private readonly pageRows: number,
  ) {}

  /** Rows the page can still take. */
  get room(): number {
    return this.pageRows - this.count;
  }

  /** Starts a batch of up to `rows` rows (at most `room`). */
  reserve(rows: number): void {
    this.seal();
    const size = Math.min(rows, this.room);
    this.current = Array.from({ length: this.width }, () => new Array<unknown>(size));
  }

  /** Adds a row of the driver's (after `reserve`). */
  add(row: readonly unknown[]): void {
    const r = this.filled++;
    for (let c = 0; c < this.width; c++) this.current[c][r] = row[c];
    this.count++;
  }

  /**
   * The page's column arrays and row count, and a new page begun; undefined when the page is empty
   * and another was handed over before (a result without rows is still one empty page). A job run in
   * turns (util/turn.ts): it yields while it joins the batches.
   */
  *take(): Generator<void, { columns: unknown[][]; rows: number } | undefined> {
    this.seal();
    const rows = this.count;
    if (rows === 0 && this.handedOver) return undefined;
    this.handedOver = true;
    const chunks = this.chunks;
    this.chunks = [];
    this.count = 0;
    if (chunks.length === 1) return { columns: chunks[0], rows };
    // A million rows × 5 columns took half a second to join in one go on a loaded machine.
    const columns: unknown[][] = [];
    let sinceTurn = 0;
    for (let c = 0; c < this.width; c++) {
      const column = new Array<unknown>(rows);
      let at = 0;
      for (const chunk of chunks) {
        const part = chunk[c];
        for (let k = 0; k < part.length; k++) column[at++] = part[k];
        sinceTurn += part.length;
        if (sinceTurn >= JOIN_SLICE) {
          sinceTurn = 0;
          yield;
        }
      }
      columns.push(column);
    }
    return { columns, rows };
  }

  /** Closes the batch being filled, cut to the rows it got. */
  private seal(): void {
    if (this.current.length === 0) return;
    for (const values of this.current) values.length = this.filled;
    if (this.filled > 0 || this.chunks.length === 0) this.chunks.push(this.current);
    this.current = [];
    this.filled = 0;
  }
}
