const UNITS = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 } as const;

/** `10mb`, `512kb`, `1.5mb`, `2gb` or a number of bytes; undefined for any other text. */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(text.trim());
  if (!m) return undefined;
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase() as keyof typeof UNITS]);
}

/** A size as `parseSize` reads it back: `256mb`, `1.5gb`, `700kb`, `12b`. */
export function formatSize(bytes: number): string {
  for (const unit of ['gb', 'mb', 'kb'] as const) {
    const n = bytes / UNITS[unit];
    if (n >= 1) return `${Number.isInteger(n) ? n : Number(n.toFixed(1))}${unit}`;
  }
  return `${bytes}b`;
}
