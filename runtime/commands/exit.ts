import type { Exit } from '../script/ast';
import { ExitSignal, type Command } from './command';

export const exit: Command<Exit> = async (stmt, input) => {
  throw new ExitSignal(stmt.keep === undefined ? undefined : input.slice(0, stmt.keep));
};
