import { z } from "zod";

/**
 * The `limit` query parameter of a list: digits only, from 1 to `max`. Anything else (negative,
 * zero, a fraction, `abc`, `0x10`, `1e2`, spaces, empty, above `max`) is refused with an issue
 * naming the range, rather than coerced or clamped into a page the caller did not ask for.
 */
export function queryLimit(max: number) {
  const message = `must be a whole number from 1 to ${max}`;
  return z
    .string({ message })
    .refine((value) => /^[0-9]{1,9}$/.test(value) && Number(value) >= 1 && Number(value) <= max, { message })
    .transform(Number);
}
