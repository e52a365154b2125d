/**
 * How parsed CSV cells are kept, which decides most of a loaded file's memory (docs/sources.md,
 * "Performance"):
 *
 * - A substring of 13 characters or more is a V8 "sliced string" that keeps the whole text it was cut
 *   from alive. Rows outlive the text chunk they were parsed from, so such cells are copied into
 *   strings of their own and the chunk can be freed.
 * - Columns that repeat a few values (codes, cities, dates, flags) share one string per distinct
 *   value: each column interns through a Map of at most INTERN_LIMIT values. When its Map is full, a
 *   column that has found fewer values in it than it holds is mostly unique: it stops interning and
 *   its Map is dropped. Bigger Maps would catch columns with tens of thousands of values, but their
 *   lookups cost more time (cache misses) than the memory they save.
 */
const SLICE_MIN = 13;
const INTERN_LIMIT = 4096;

export class CellStore {
  private readonly maps: (Map<string, string> | null)[] = [];
  private readonly hits: number[] = [];

  /** The string a row keeps for `value` read in column `column`. */
  keep(column: number, value: string): string {
    const kept = value.length >= SLICE_MIN ? own(value) : value;
    let map = this.maps[column];
    if (map === null) return kept;
    if (map === undefined) {
      map = this.maps[column] = new Map();
      this.hits[column] = 0;
    }
    const known = map.get(kept);
    if (known !== undefined) {
      this.hits[column]++;
      return known;
    }
    if (map.size < INTERN_LIMIT) map.set(kept, kept);
    else if (this.hits[column] < map.size) this.maps[column] = null;
    return kept;
  }
}

/**
 * A flat copy of a string that shares no memory with the text it was cut from. Joining two pieces is
 * the cheapest copy V8 offers from JavaScript (about 0.1 µs); `+` would make a cons string and
 * `slice`/`substring` another sliced string.
 */
function own(value: string): string {
  return [value[0], value.slice(1)].join('');
}
