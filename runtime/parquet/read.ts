import Decimal from 'decimal.js';
import { Dataset } from '../dataset/dataset';
import { withScale } from '../dataset/decimal-scale';
import { decodeOffThread } from './decoder-thread';
import { fromThread } from '../dataset/thread-wire';

/**
 * A Parquet file as a dataset (docs/drives.md, "Reading Parquet"), decoded in a worker thread that
 * `signal` (Ctrl-C, the kernel's interrupt) ends. DECIMAL cells arrive as unscaled integers and are
 * scaled here exactly: a Decimal cannot be posted between threads.
 */
export async function readParquetFile(full: string, display: string, signal: AbortSignal): Promise<Dataset> {
  const { columns, wire, rows } = await decodeOffThread({ full, display }, signal);
  const data = wire.map(fromThread);
  columns.forEach(({ type }, k) => {
    const cells = data[k];
    if (type.base !== 'decimal' || !Array.isArray(cells)) return;
    const scale = type.scale ?? 0;
    const exponent = scale ? `e-${scale}` : '';
    for (let r = 0; r < rows; r++) {
      const unscaled = cells[r];
      if (unscaled !== null) cells[r] = withScale(new Decimal(`${unscaled as bigint}${exponent}`), scale);
    }
  });
  return new Dataset(columns, data, rows);
}
