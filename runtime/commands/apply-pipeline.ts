import { Dataset } from '../dataset/dataset';
import type { ApplyPipeline } from '../script/ast';
import type { Command, CommandContext } from './command';

/**
 * APPLY PIPELINE ( <statements> ) { BREAK_ON_EMPTY } { BYPASS } (reference A, docs/transformations.md).
 * After a read it runs once on the pipeline dataset; inline in a paged SELECT the reader calls
 * `runPipeline` once per page with that page's rows.
 * - BREAK_ON_EMPTY: when the dataset is (or becomes) empty, the remaining statements are skipped and
 *   `stop` is set, which tells a paged reader to request no further page.
 * - BYPASS: the statements run for their effects (PUSH, SINK, EXEC, PRINT…) but their result is not
 *   kept: the dataset continues as it was before the pipeline (a paged reader keeps the raw page).
 */
export interface PipelineOutcome {
  dataset: Dataset;
  stop: boolean;
}

export async function runPipeline(
  pipeline: ApplyPipeline,
  input: Dataset,
  ctx: CommandContext,
): Promise<PipelineOutcome> {
  let current = input;
  let stop = pipeline.breakOnEmpty && input.rowCount === 0;
  if (!stop) {
    for (const statement of pipeline.statements) {
      current = await ctx.runStatements([statement], current);
      if (pipeline.breakOnEmpty && current.rowCount === 0) {
        stop = true;
        break;
      }
    }
  }
  return { dataset: pipeline.bypass ? input : current, stop };
}

/**
 * Runs an inline block on each page of a paged read. A page with no records has no columns either
 * (the `[]` that ends offset and page paging, an empty JSON file of a glob); it gets the columns of
 * the page before it, so the block's column references still bind and it runs on zero rows.
 */
export class PagePipeline {
  private previous: Dataset | undefined;

  constructor(
    private readonly pipeline: ApplyPipeline,
    private readonly ctx: CommandContext,
  ) {}

  run(page: Dataset): Promise<PipelineOutcome> {
    const input =
      page.columns.length === 0 && page.rowCount === 0 && this.previous
        ? Dataset.fromRows(this.previous.columns, [])
        : page;
    this.previous = input;
    return runPipeline(this.pipeline, input, this.ctx);
  }
}

export const applyPipeline: Command<ApplyPipeline> = async (stmt, input, ctx) =>
  (await runPipeline(stmt, input, ctx)).dataset;
