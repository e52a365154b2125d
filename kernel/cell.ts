import { splitMagics } from '../runtime/magics/index';
import { isCompleteScript } from '../runtime/script/parser';

/**
 * Whether a cell is ready to run, as a console asks before sending it: leading `%magic` lines are
 * always complete (the session splits them off the same way), the SQL CDC after them must be.
 */
export function cellCompleteness(code: string): ReturnType<typeof isCompleteScript> {
  return isCompleteScript(splitMagics(code).body);
}
