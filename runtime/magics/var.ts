import { ScriptError } from '../errors';
import type { Result } from '../results';
import type { MagicHost } from './magic';
import { variablesOf } from '../workspace/variables';
import { ArgumentError, parseFlags, splitArgs, type FlagSpec } from './args';
import { listing } from './listing';
import type { Magic } from './magic';

const USAGE = '%var [list] | %var set [--encrypted] <name> <value> | %var remove <name>';
const OPTIONS = { set: { encrypted: 'switch' } } as const satisfies Record<string, FlagSpec>;

/** %var: the workspace variables read by #trygetvar and written by #setvar (encrypted ones masked). */
export const varMagic: Magic = {
  name: 'var',
  usage: USAGE,
  description: 'lists, sets (optionally encrypted) and removes workspace variables',
  words: ['list', 'set', 'remove'],
  options: OPTIONS,
  // A variable's value (an encrypted one is a secret; any may be).
  secretArgs: { positionalFrom: { set: 1 } },
  run(session: MagicHost, args: string): Result[] {
    const words = splitArgs(args);
    const subWord = words.shift() ?? 'list';
    const sub = subWord.toLowerCase();
    const store = variablesOf(session.workspace);
    switch (sub) {
      case 'list': {
        if (words.length) throw new ArgumentError(`%var list takes no arguments; usage: ${USAGE}`, words[0]);
        const vars = store.list();
        if (vars.length === 0)
          return [{ kind: 'message', text: 'no variables (add one with %var set <name> <value>)' }];
        return [
          listing(
            ['name', 'encrypted', 'value'],
            vars.map((v) => [v.name, v.encrypted ? 'yes' : 'no', v.shown]),
            'Variables',
          ),
        ];
      }
      case 'set': {
        const { positional, flags } = parseFlags(words, OPTIONS.set, USAGE);
        if (positional.length > 2)
          throw new ArgumentError(
            `%var set takes one value: quote a value with blanks ('%var set ${positional[0]} 'a b c''); usage: ${USAGE}`,
            positional[2],
          );
        if (positional.length !== 2)
          throw new ScriptError(`%var set needs a name and a value; usage: ${USAGE}`, 'semantic');
        const [name, value] = positional;
        const encrypted = flags.has('encrypted') ? true : undefined;
        store.set(name, value, encrypted);
        const enc = store.list().find((v) => v.name.toLowerCase() === name.toLowerCase())?.encrypted;
        return [{ kind: 'message', text: `variable ${name} set${enc ? ' (encrypted)' : ''}` }];
      }
      case 'remove': {
        if (words.length !== 1) throw new ScriptError(`%var remove needs a name; usage: ${USAGE}`, 'semantic');
        if (!store.remove(words[0])) throw new ArgumentError(`no variable '${words[0]}'`, words[0], 'runtime');
        return [{ kind: 'message', text: `variable ${words[0]} removed` }];
      }
    }
    throw new ArgumentError(`unknown %var subcommand '${sub}'; usage: ${USAGE}`, subWord);
  },
};
