import type { Session } from '../runtime/index';

/** What `.help` prints: the REPL's own commands, the magics (from their registry) and where docs are. */
export function helpText(session: Session, commands: Record<string, { help?: string }>): string {
  const dotCommands = Object.keys(commands)
    .sort()
    .map((name) => `  .${name.padEnd(10)} ${commands[name].help ?? ''}`);
  // A usage longer than its column would run into the description: that goes on the next line then.
  const magics = session.magics
    .all()
    .map((m) =>
      m.usage.length <= 28 ? `  ${m.usage.padEnd(28)} ${m.description}` : `  ${m.usage}\n    ${m.description}`,
    );
  return [
    'Type SQL CDC statements; a statement may span lines and runs when it ends with ";".',
    'Lines starting with % are magics and run at once. The pipeline dataset stays from statement to statement.',
    '',
    'REPL commands:',
    ...dotCommands,
    '',
    'Magics:',
    ...magics,
    '',
    'Keys: Tab completes keywords, #functions, [connections], columns, %magics and their options, .commands;',
    '      Ctrl-C cancels a running statement (or the line being typed); Ctrl-D exits.',
    '',
    'Documentation: .doc <keyword | #function | column | %magic | [connection]>, e.g. ".doc APPLY FILTER" or ".doc #utcnow";',
    '               docs/language.md and docs/functions.md in the sqlcdc package for the whole language.',
  ].join('\n');
}
