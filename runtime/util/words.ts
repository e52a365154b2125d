/** "1 insert", "2 inserts", "1,000 rows": a count and its noun, for messages. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
