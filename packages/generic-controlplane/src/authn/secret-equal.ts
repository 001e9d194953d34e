import { timingSafeEqual } from "node:crypto";

/**
 * Whether a presented secret (a bearer token) equals a known one, compared in time that depends only
 * on the lengths, so a response's timing tells a guesser nothing about how much of a guess matched.
 */
export function secretEquals(presented: string, known: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(known);
  return a.length === b.length && timingSafeEqual(a, b);
}
