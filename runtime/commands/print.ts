import { evaluateText } from '../functions/evaluate';
import type { Print } from '../script/ast';
import type { Command } from './command';

export const print: Command<Print> = async (stmt, _input, ctx) => {
  ctx.emit({ kind: 'message', text: evaluateText(stmt.text, ctx) });
};
