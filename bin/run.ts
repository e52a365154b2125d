import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  cancelled,
  displayFallback,
  errorInFile,
  fileErrorReason,
  pipelineNameOf,
  renderText,
  Session,
  toCsv,
  toJsonRows,
  type Dataset,
  type Result,
  type ScriptError,
} from '../runtime/interpreter';
import { ProgressLine } from '../repl/progress-line';
import { abortOnSigint } from './interrupt';
import { EXIT, type OutputFormat } from './constants';
import { formatScriptError } from './script-error';

export interface RunOptions {
  workspace?: string;
  output: OutputFormat;
}

/**
 * The final dataset on stdout in the chosen format. A table shows every row: a script's output is
 * read whole, and there is no later cell to ask for more. A dataset without columns prints nothing,
 * except `[]` for json so the output always parses.
 */
function formatDataset(ds: Dataset, format: OutputFormat): string {
  if (format === 'json') return toJsonRows(ds);
  if (ds.columns.length === 0) return '';
  if (format === 'csv') return toCsv(ds);
  return renderText(ds, {
    limit: Math.max(ds.rowCount, 1),
    width: process.stdout.isTTY ? process.stdout.columns : undefined,
  });
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * `sqlcdc run`: runs a script file as one cell in a fresh session (relative paths resolve against
 * the working directory) and prints the final dataset on stdout. Everything else — PRINT output,
 * messages, warnings, magic listings, errors — goes to stderr, so stdout stays pure data.
 * SIGINT cancels the running statement (a second one exits at once). Returns the exit code.
 */
export async function runScript(file: string, options: RunOptions): Promise<number> {
  let source: string;
  try {
    source = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (e) {
    process.stderr.write(`sqlcdc: cannot read ${file}: ${fileErrorReason(e)}\n`);
    return EXIT.usage;
  }

  const session = new Session({ workspace: options.workspace, pipeline: pipelineNameOf(file), script: resolve(file) });
  const controller = new AbortController();
  const stopListening = abortOnSigint(controller);

  let failed: ScriptError | undefined;
  /** Everything but the final dataset goes to stderr. */
  const progress = new ProgressLine();
  const report = (r: Result) => {
    if (r.kind !== 'progress') progress.end();
    switch (r.kind) {
      case 'table':
        // The pipeline's final table is printed below in the chosen format; other tables are
        // magic listings, for the user's eyes.
        if (r.dataset !== session.dataset) process.stderr.write(withNewline(renderText(r.dataset, { limit: r.limit })));
        break;
      case 'message':
        process.stderr.write(withNewline(r.text));
        break;
      case 'warning':
        process.stderr.write(`warning: ${r.text}\n`);
        break;
      case 'display':
        process.stderr.write(`${displayFallback(r)}\n`);
        break;
      case 'progress':
        progress.show(r);
        return;
      case 'error':
        failed = r.error;
        process.stderr.write(withNewline(formatScriptError(file, r.error, r.source)));
        break;
    }
  };
  session.output.subscribe(({ result }) => report(result));
  try {
    for await (const r of session.execute(source, { signal: controller.signal })) report(r);
  } finally {
    await stopListening();
    await session.close();
  }
  if (controller.signal.aborted) {
    // Interrupted after the last statement had begun, which ran to its end without looking: nothing reported it.
    if (!failed) process.stderr.write(`${errorInFile(file, cancelled())}\n`);
    return EXIT.interrupted;
  }
  if (failed) return EXIT.scriptError;
  await new Promise<void>((resolve, reject) =>
    process.stdout.write(withNewline(formatDataset(session.dataset, options.output)), (e) =>
      e ? reject(e) : resolve(),
    ),
  );
  return EXIT.ok;
}
