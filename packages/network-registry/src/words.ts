/**
 * Fixed-width arithmetic on addresses held as four big-endian unsigned 32-bit words.
 * IPv4 uses only the first word (the others stay 0), so IPv4 hot paths touch one number and
 * IPv6 never needs BigInt.
 */

export type IPFamily = 4 | 6;

/** True for an unsigned 32-bit integer. */
export function isWord(value: unknown): value is number {
  return typeof value === "number" && value >>> 0 === value;
}

/** Number of address bits per family. */
export function familyBits(family: IPFamily): 32 | 128 {
  return family === 4 ? 32 : 128;
}

/** The network mask for the word at `wordIndex` of a prefix of length `length`. */
export function wordMask(length: number, wordIndex: number): number {
  const bitsInWord = length - wordIndex * 32;
  if (bitsInWord <= 0) return 0;
  if (bitsInWord >= 32) return 0xffffffff;
  return (0xffffffff << (32 - bitsInWord)) >>> 0;
}

/** The bit at position `position` (0 = most significant) of a four-word value. */
export function bitAt(w0: number, w1: number, w2: number, w3: number, position: number): number {
  const word = position < 32 ? w0 : position < 64 ? w1 : position < 96 ? w2 : w3;
  return (word >>> (31 - (position & 31))) & 1;
}

/** Length of the common leading bits of two four-word values (0..128). */
export function commonPrefixLength(a0: number, a1: number, a2: number, a3: number, b0: number, b1: number, b2: number, b3: number): number {
  let x = (a0 ^ b0) >>> 0;
  if (x !== 0) return Math.clz32(x);
  x = (a1 ^ b1) >>> 0;
  if (x !== 0) return 32 + Math.clz32(x);
  x = (a2 ^ b2) >>> 0;
  if (x !== 0) return 64 + Math.clz32(x);
  x = (a3 ^ b3) >>> 0;
  if (x !== 0) return 96 + Math.clz32(x);
  return 128;
}

/** Compare two four-word values as unsigned 128-bit integers. */
export function compareWords(a0: number, a1: number, a2: number, a3: number, b0: number, b1: number, b2: number, b3: number): number {
  if (a0 !== b0) return a0 < b0 ? -1 : 1;
  if (a1 !== b1) return a1 < b1 ? -1 : 1;
  if (a2 !== b2) return a2 < b2 ? -1 : 1;
  if (a3 !== b3) return a3 < b3 ? -1 : 1;
  return 0;
}

/** Four words as one unsigned BigInt (only at the edges: sizes and counts). */
export function wordsToBigInt(family: IPFamily, w0: number, w1: number, w2: number, w3: number): bigint {
  if (family === 4) return BigInt(w0);
  return (BigInt(w0) << 96n) | (BigInt(w1) << 64n) | (BigInt(w2) << 32n) | BigInt(w3);
}

/** The inverse of {@link wordsToBigInt}. */
export function bigIntToWords(family: IPFamily, value: bigint): [number, number, number, number] {
  if (family === 4) return [Number(value & 0xffffffffn), 0, 0, 0];
  return [
    Number((value >> 96n) & 0xffffffffn),
    Number((value >> 64n) & 0xffffffffn),
    Number((value >> 32n) & 0xffffffffn),
    Number(value & 0xffffffffn),
  ];
}

/** Dotted-quad text of an IPv4 word. */
export function formatIPv4(w0: number): string {
  return `${w0 >>> 24}.${(w0 >>> 16) & 255}.${(w0 >>> 8) & 255}.${w0 & 255}`;
}
