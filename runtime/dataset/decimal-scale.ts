import Decimal from 'decimal.js';

/**
 * .NET's System.Decimal keeps a scale: 12.50m prints as "12.50", and 12.50m * 2 is 25.00m. decimal.js
 * drops trailing zeros, so a value whose scale is larger than its significant decimals is a
 * `ScaledDecimal`, which carries the scale beside the digits. Every other Decimal's scale is its
 * number of decimals. Values are immutable: a new scale is a new instance.
 */
class ScaledDecimal extends Decimal {
  constructor(
    value: Decimal,
    readonly scale: number,
  ) {
    super(value);
  }
}

/** The largest scale of System.Decimal. */
export const MAX_DOTNET_SCALE = 28;

/** The scale of a decimal value: how many decimals .NET would print. */
export function scaleOf(d: Decimal): number {
  return d instanceof ScaledDecimal ? d.scale : Math.max(d.decimalPlaces(), 0);
}

/** `d` with at least `scale` decimals when printed (trailing zeros added, never digits removed). */
export function withScale(d: Decimal, scale: number): Decimal {
  return scale > d.decimalPlaces() ? new ScaledDecimal(d, scale) : d instanceof ScaledDecimal ? new Decimal(d) : d;
}

/** A decimal read from number text, keeping the scale written ("12.50" has scale 2, as Decimal.Parse). */
export function parseDecimal(text: string): Decimal {
  const d = new Decimal(text);
  const m = /^[^.eE]*(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
  if (!m) return d;
  const scale = (m[1]?.length ?? 0) - Number(m[2] ?? 0);
  return withScale(d, Math.min(scale, MAX_DOTNET_SCALE));
}

/** The invariant text of a decimal as .NET prints it: exact digits, the value's scale, no exponent. */
export function decimalText(d: Decimal): string {
  return d instanceof ScaledDecimal ? d.toFixed(d.scale) : d.toFixed();
}
