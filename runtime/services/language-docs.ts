import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { COMMANDS, isSupported, type CommandTable } from '../commands/table';
import { languageReference, statementDocs } from '../script/docs';
import { parseScript } from '../script/parser';

/**
 * The keywords of the statements that parse but have no command in `table` yet. A doc's statement kind
 * is the kind its own example parses to (the docs test checks each example parses to its statement).
 */
export function unavailableStatements(table: CommandTable = COMMANDS): Set<string> {
  const out = new Set<string>();
  for (const doc of statementDocs) {
    const kind = parseScript(doc.example).statements[0].kind;
    if (!isSupported(table, kind)) out.add(doc.keyword);
  }
  return out;
}

/** docs/language.md: the language reference, saying which statements do not run yet. */
export function languageDocs(): string {
  return languageReference(unavailableStatements());
}

if (require.main === module) {
  const target = resolve(__dirname, '../../../docs/language.md');
  writeFileSync(target, languageDocs());
  process.stdout.write(`wrote ${target}\n`);
}
