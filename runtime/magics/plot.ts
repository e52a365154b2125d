import {
  CHART_KINDS,
  ChannelError,
  MAX_CHART_ROWS,
  VEGA_LITE_MIME,
  vegaLiteChart,
  type ChartKind,
  type ChartRequest,
} from '../dataset/vega-lite';
import { ScriptError } from '../errors';
import type { Result } from '../results';
import { ArgumentError, splitArgs } from './args';
import type { Magic } from './magic';
import { thousands } from '../util/words';

const USAGE = '%plot <kind> x=<column> [y=<column>] [color=<column>]';
const CHANNELS = ['x', 'y', 'color'] as const;

function parsePlot(args: string): ChartRequest {
  const [kindWord, ...words] = splitArgs(args);
  if (!kindWord) throw new ScriptError(`which chart? usage: ${USAGE}`, 'semantic');
  const kind = kindWord.toLowerCase() as ChartKind;
  if (!CHART_KINDS.includes(kind))
    throw new ArgumentError(
      `unknown chart kind '${kindWord}' (kinds: ${CHART_KINDS.join(', ')}); usage: ${USAGE}`,
      kindWord,
    );
  const given = new Map<string, string>();
  for (const word of words) {
    const eq = word.indexOf('=');
    const name = eq < 0 ? word : word.slice(0, eq).toLowerCase();
    if (eq < 0 || !(CHANNELS as readonly string[]).includes(name)) {
      throw new ArgumentError(`'${word}' is not one of x=, y=, color=; usage: ${USAGE}`, word);
    }
    const column = word.slice(eq + 1);
    if (column === '') throw new ArgumentError(`${name}= needs a column name; usage: ${USAGE}`, word);
    if (given.has(name)) throw new ArgumentError(`${name}= is given twice`, word);
    given.set(name, column);
  }
  const x = given.get('x');
  if (x === undefined) throw new ScriptError(`a chart needs x=<column>; usage: ${USAGE}`, 'semantic');
  return { kind, x, y: given.get('y'), color: given.get('color') };
}

function atChannel<T>(draw: () => T): T {
  try {
    return draw();
  } catch (e) {
    throw e instanceof ChannelError ? new ArgumentError(e.message, e.column, e.kind) : e;
  }
}

/** %plot: a Vega-Lite chart of the pipeline dataset, drawn by JupyterLab; elsewhere its description. */
export const plotMagic: Magic = {
  name: 'plot',
  usage: USAGE,
  description: `charts the pipeline dataset in Jupyter (Vega-Lite), kind ${CHART_KINDS.join('|')}; without y it counts rows per x; over ${thousands(MAX_CHART_ROWS)} rows, an even sample`,
  words: [...CHART_KINDS],
  run(session, args): Result[] {
    const request = parsePlot(args);
    if (session.dataset.columns.length === 0)
      throw new ScriptError('the pipeline dataset has no columns yet: load data before %plot', 'runtime');
    const chart = atChannel(() => vegaLiteChart(session.dataset, request));
    return [{ kind: 'display', data: { [VEGA_LITE_MIME]: chart.spec }, text: chart.text }];
  },
};
