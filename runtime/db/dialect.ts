import type { Dialect } from './engine';
import { postgresDdl, sqliteDdl } from './types';

/** An identifier in double quotes, the standard quoting both engines accept. */
export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  label: 'SQLite',
  quote: quoteIdentifier,
  placeholder: () => '?',
  ddl: sqliteDdl,
  truncate: (table) => `DELETE FROM ${table}`,
  differs: (a, b) => `${a} IS NOT ${b}`,
  statementTimeout: () => undefined,
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  label: 'PostgreSQL',
  quote: quoteIdentifier,
  placeholder: (n) => `$${n}`,
  ddl: postgresDdl,
  truncate: (table) => `TRUNCATE TABLE ${table}`,
  // Compared as text: json and xml have no equality operator.
  differs: (a, b) => `${a}::text IS DISTINCT FROM ${b}::text`,
  statementTimeout: (ms) => `SET LOCAL statement_timeout = ${Math.max(1, Math.round(ms))}`,
};
