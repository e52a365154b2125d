import { registerCommand } from './registry';
import { evaluateText } from '../functions/evaluate';

registerCommand('Print', async (stmt, ctx) => {
  ctx.emit({ kind: 'message', text: evaluateText(stmt.text, ctx.state) });
});
