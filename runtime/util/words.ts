/**
 * "1,000": an integer count grouped as en-US writes it. Not Intl: the first Intl formatter a process
 * makes loads ICU's data, some 30 ms that every CLI call whose output shows a count would pay.
 */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** "1 insert", "2 inserts", "1,000 rows": a count and its noun, for messages. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${thousands(n)} ${n === 1 ? one : many}`;
}
