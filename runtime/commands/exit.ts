import { registerCommand } from './registry';
import { ExitSignal } from './command';

registerCommand('Exit', async (stmt, ctx) => {
  if (stmt.keep === undefined) throw new ExitSignal(undefined);
  throw new ExitSignal(ctx.state.dataset.slice(0, stmt.keep));
});
