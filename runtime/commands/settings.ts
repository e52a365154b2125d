import type { SessionEnv } from '../scope';

/** #setjsonsettings floatparsehandling:decimal: readers type fractional JSON numbers as decimals. */
export function floatsAsDecimal(session: SessionEnv): boolean {
  return session.jsonSettings.get('floatparsehandling')?.toLowerCase() === 'decimal';
}
