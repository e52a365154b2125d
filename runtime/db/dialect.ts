import { ScriptError } from '../errors';
import type { Dialect } from './engine';
import { postgresDdl, sqliteDdl } from './types';

/**
 * An identifier in double quotes, the standard quoting both engines accept. Names come from data (a
 * JSON key, a CSV header), so a NUL is refused here by name: SQLite would end the statement's text at
 * it and PostgreSQL the protocol message, each with an error naming neither.
 */
function quoteIdentifier(label: string): (identifier: string) => string {
  return (identifier) => {
    if (identifier.includes('\0'))
      throw new ScriptError(
        `the name '${JSON.stringify(identifier).slice(1, -1)}' holds a NUL character, which ${label} cannot take in a table or column name`,
        'runtime',
      );
    return `"${identifier.replace(/"/g, '""')}"`;
  };
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  label: 'SQLite',
  quote: quoteIdentifier('SQLite'),
  placeholder: () => '?',
  ddl: sqliteDdl,
  truncate: (table) => `DELETE FROM ${table}`,
  differs: (a, b) => `${a} IS NOT ${b}`,
  statementTimeout: () => undefined,
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  label: 'PostgreSQL',
  quote: quoteIdentifier('PostgreSQL'),
  placeholder: (n) => `$${n}`,
  ddl: postgresDdl,
  truncate: (table) => `TRUNCATE TABLE ${table}`,
  // Compared as text: json and xml have no equality operator.
  differs: (a, b) => `${a}::text IS DISTINCT FROM ${b}::text`,
  statementTimeout: (ms) => `SET LOCAL statement_timeout = ${Math.max(1, Math.round(ms))}`,
};
