import type Decimal from 'decimal.js';
import { ScriptError } from '../errors';
import type { Dataset } from './dataset';
import { formatDateTime, formatValue } from './format-value';
import type { BaseType, ColumnType, Value } from './types';
import { thousands } from '../util/words';

/**
 * A chart of the dataset as a Vega-Lite v5 spec (JupyterLab's application/vnd.vegalite.v5+json),
 * with a sentence saying what it shows for clients that cannot draw it.
 */

export const VEGA_LITE_MIME = 'application/vnd.vegalite.v5+json';
export const CHART_KINDS = ['bar', 'line', 'point', 'area', 'histogram'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

/**
 * The most rows a spec embeds: the notebook stores the spec and the browser draws every mark, so a
 * larger dataset is shown through an evenly spaced sample of this many rows (and says so).
 */
export const MAX_CHART_ROWS = 5000;

export interface ChartRequest {
  kind: ChartKind;
  x: string;
  /** Omitted: the chart counts rows per x. A histogram takes none. */
  y?: string;
  color?: string;
}

export interface Chart {
  spec: Record<string, unknown>;
  /** `bar chart of amount by region, 12 rows` */
  text: string;
}

type Plain = string | number | boolean | null;
type EncodingType = 'quantitative' | 'temporal' | 'nominal' | 'ordinal';

const KIND_NAMES: Record<ChartKind, string> = {
  bar: 'bar chart',
  line: 'line chart',
  point: 'point chart',
  area: 'area chart',
  histogram: 'histogram',
};
const NUMERIC: ReadonlySet<BaseType> = new Set(['tinyint', 'short', 'int', 'long', 'decimal', 'double', 'float']);
const FLOAT: ColumnType = { base: 'float' };

/** The JSON value a chart plots for a non-null cell: numbers as JS numbers (plotting needs no exact digits). */
function plainOf(base: BaseType): (v: Value) => Plain {
  switch (base) {
    case 'long':
      return (v) => Number(v);
    case 'decimal':
      return (v) => (v as Decimal).toNumber();
    case 'float':
      // float32 values shown as the table shows them (0.1, not 0.10000000149011612).
      return (v) => Number(formatValue(v, FLOAT));
    case 'datetime':
      // The wall clock the table shows; Vega-Lite reads it as a local date, so the axis shows it unchanged.
      return (v) => formatDateTime(v as Date) || null;
    default:
      return NUMERIC.has(base) ? (v) => (Number.isFinite(v) ? (v as number) : null) : (v) => v as Plain;
  }
}

function encodingType(base: BaseType): EncodingType {
  if (NUMERIC.has(base)) return 'quantitative';
  return base === 'datetime' ? 'temporal' : 'nominal';
}

interface Channel {
  name: 'x' | 'y' | 'color';
  column: string;
  ordinal: number;
  type: ColumnType;
}

/** A channel's column that does not exist or cannot be plotted: `%plot` shows it at that argument. */
export class ChannelError extends ScriptError {
  constructor(
    message: string,
    readonly column: string,
    kind: ScriptError['kind'],
  ) {
    super(message, kind);
  }
}

function channel(ds: Dataset, name: Channel['name'], column: string): Channel {
  const ordinal = ds.indexOf(column);
  if (ordinal < 0) {
    const known = ds.columns.map((c) => c.name).join(', ') || '(none)';
    throw new ChannelError(`${name}=${column}: unknown column '${column}' (columns: ${known})`, column, 'runtime');
  }
  const type = ds.columns[ordinal].type;
  if (type.base === 'bytes')
    throw new ChannelError(`${name}=${column}: a byte[] column cannot be plotted`, column, 'semantic');
  return { name, column: ds.columns[ordinal].name, ordinal, type };
}

/** Vega-Lite's field names read `.` and `[]` as paths, so the data uses the channel names and the axes the column names. */
function encoding(
  kind: ChartKind,
  x: Channel,
  y: Channel | undefined,
  color: Channel | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (kind === 'histogram') {
    out.x = { field: 'x', type: 'quantitative', bin: { maxbins: 30 }, title: x.column };
  } else {
    const xType = encodingType(x.type.base);
    // Bars stand for values, not a continuous scale: numbers on a bar chart's x are categories.
    out.x = { field: 'x', type: kind === 'bar' && xType === 'quantitative' ? 'ordinal' : xType, title: x.column };
  }
  out.y = y
    ? { field: 'y', type: encodingType(y.type.base), title: y.column }
    : { aggregate: 'count', type: 'quantitative', title: 'rows' };
  if (color) out.color = { field: 'color', type: encodingType(color.type.base), title: color.column };
  return out;
}

/** Rows to embed: all of them, or `max` evenly spaced ones (first row included) when there are more. */
function sampleRows(rowCount: number, max: number): { count: number; at: (i: number) => number } {
  if (rowCount <= max) return { count: rowCount, at: (i) => i };
  return { count: max, at: (i) => Math.floor((i * rowCount) / max) };
}

export function vegaLiteChart(ds: Dataset, request: ChartRequest, maxRows = MAX_CHART_ROWS): Chart {
  const { kind } = request;
  const x = channel(ds, 'x', request.x);
  if (kind === 'histogram') {
    if (request.y !== undefined)
      throw new ScriptError('a histogram takes x only: it counts the rows in each bin of x', 'semantic');
    if (!NUMERIC.has(x.type.base)) {
      throw new ScriptError(
        `a histogram needs a numeric x; '${x.column}' is ${x.type.base} (count its values with %plot bar x=${x.column})`,
        'semantic',
      );
    }
  }
  const y = request.y === undefined ? undefined : channel(ds, 'y', request.y);
  const color = request.color === undefined ? undefined : channel(ds, 'color', request.color);
  const channels = [x, y, color].filter((c): c is Channel => c !== undefined);
  const converters = channels.map((c) => plainOf(c.type.base));

  const rows = sampleRows(ds.rowCount, maxRows);
  const values = new Array<Record<string, Plain>>(rows.count);
  for (let i = 0; i < rows.count; i++) {
    const r = rows.at(i);
    const record: Record<string, Plain> = {};
    for (let k = 0; k < channels.length; k++) {
      const v = ds.cell(r, channels[k].ordinal);
      record[channels[k].name] = v === null ? null : converters[k](v);
    }
    values[i] = record;
  }

  const what = kind === 'histogram' ? x.column : `${y ? y.column : 'row count'} by ${x.column}`;
  const coloured = color ? `, coloured by ${color.column}` : '';
  const sampled = rows.count < ds.rowCount;
  const rowText = sampled
    ? `${thousands(rows.count)} of ${thousands(ds.rowCount)} rows (an evenly spaced sample)`
    : `${thousands(ds.rowCount)} ${ds.rowCount === 1 ? 'row' : 'rows'}`;
  const spec: Record<string, unknown> = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: sampled ? { text: what, subtitle: rowText } : what,
    data: { values },
    mark: { type: kind === 'histogram' ? 'bar' : kind, tooltip: true },
    encoding: encoding(kind, x, y, color),
  };
  return { spec, text: `${KIND_NAMES[kind]} of ${what}${coloured}, ${rowText}` };
}
