import { Dataset } from '../dataset/dataset';
import { registerCommand } from './registry';
import { ExitSignal } from './command';

registerCommand('Exit', async (stmt, ctx) => {
  const current = ctx.state.dataset;
  if (stmt.keep === undefined) throw new ExitSignal(undefined);
  throw new ExitSignal(new Dataset(current.columns.map((c) => ({ ...c })), current.rows.slice(0, stmt.keep)));
});
