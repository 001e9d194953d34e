import { formatIPv6Words } from "@kubekit/apimachinery";
import { IPAddress } from "./address.js";
import { describeValue } from "./describe-value.js";
import { NetworkRegistryError } from "./errors.js";
import { bigIntToWords, bitAt, compareWords, familyBits, formatIPv4, isWord, wordMask, wordsToBigInt, type IPFamily } from "./words.js";

/** Splitting into more pieces than this throws: enumerate with a loop over `first()`/`size()` instead. */
export const MAX_SPLIT_PIECES = 65_536;

/**
 * A parsed CIDR prefix with its host bits cleared. Held as four big-endian 32-bit words plus a
 * length, so containment and overlap are a few integer comparisons. Create one with
 * {@link parsePrefix} or {@link Prefix.from}.
 */
export class Prefix {
  readonly family: IPFamily;
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;
  readonly length: number;

  /** Words must be unsigned and already masked to `length`; use {@link Prefix.from} otherwise. */
  constructor(family: IPFamily, w0: number, w1: number, w2: number, w3: number, length: number) {
    const bits = family === 4 ? 32 : 128;
    if (
      (family !== 4 && family !== 6) ||
      !isWord(w0) ||
      !isWord(w1) ||
      !isWord(w2) ||
      !isWord(w3) ||
      (family === 4 && (w1 | w2 | w3) !== 0) ||
      !Number.isInteger(length) ||
      length < 0 ||
      length > bits ||
      ((w0 & ~wordMask(length, 0)) | (w1 & ~wordMask(length, 1)) | (w2 & ~wordMask(length, 2)) | (w3 & ~wordMask(length, 3))) !== 0
    ) {
      throw new NetworkRegistryError(
        "invalid-argument",
        `a Prefix needs family 4 or 6, unsigned 32-bit words with the host bits clear and a length of 0..${bits}; use Prefix.from(address, length) to clear host bits`,
      );
    }
    this.family = family;
    this.w0 = w0;
    this.w1 = w1;
    this.w2 = w2;
    this.w3 = w3;
    this.length = length;
  }

  /** The prefix of `length` bits that contains `address` (host bits are cleared). */
  static from(address: IPAddress, length: number): Prefix {
    if (!(address instanceof IPAddress))
      throw new NetworkRegistryError("invalid-argument", `Prefix.from takes an IPAddress, got ${describeValue(address)}`);
    const bits = familyBits(address.family);
    if (!Number.isInteger(length) || length < 0 || length > bits) {
      throw new NetworkRegistryError(
        "invalid-argument",
        `prefix length ${describeValue(length)} is outside 0..${bits} for IPv${address.family}`,
      );
    }
    return new Prefix(
      address.family,
      (address.w0 & wordMask(length, 0)) >>> 0,
      (address.w1 & wordMask(length, 1)) >>> 0,
      (address.w2 & wordMask(length, 2)) >>> 0,
      (address.w3 & wordMask(length, 3)) >>> 0,
      length,
    );
  }

  /** The whole address space of a family: `0.0.0.0/0` or `::/0`. */
  static all(family: IPFamily): Prefix {
    if (family !== 4 && family !== 6)
      throw new NetworkRegistryError("invalid-argument", `the family must be 4 or 6, got ${describeValue(family)}`);
    return new Prefix(family, 0, 0, 0, 0, 0);
  }

  /** Number of address bits of the family (32 or 128). */
  get bits(): 32 | 128 {
    return familyBits(this.family);
  }

  /** Canonical text, e.g. `10.0.0.0/8` or `2001:db8::/32`. */
  toString(): string {
    const address = this.family === 4 ? formatIPv4(this.w0) : formatIPv6Words(this.w0, this.w1, this.w2, this.w3);
    return `${address}/${this.length}`;
  }

  toJSON(): string {
    return this.toString();
  }

  /** True when `other` (a prefix or an address) lies inside this prefix (equal counts). */
  contains(other: Prefix | IPAddress): boolean {
    if (!(other instanceof Prefix) && !(other instanceof IPAddress)) throw notPrefix("contains", other, "a Prefix or an IPAddress");
    if (other.family !== this.family) return false;
    const length = this.length;
    if (other instanceof Prefix && other.length < length) return false;
    if (((other.w0 ^ this.w0) & wordMask(length, 0)) !== 0) return false;
    if (length <= 32) return true;
    return (
      ((other.w1 ^ this.w1) & wordMask(length, 1)) === 0 &&
      ((other.w2 ^ this.w2) & wordMask(length, 2)) === 0 &&
      ((other.w3 ^ this.w3) & wordMask(length, 3)) === 0
    );
  }

  /** Two prefixes overlap exactly when one contains the other. */
  overlaps(other: Prefix): boolean {
    if (!(other instanceof Prefix)) throw notPrefix("overlaps", other);
    return this.contains(other) || other.contains(this);
  }

  equals(other: Prefix): boolean {
    if (!(other instanceof Prefix)) throw notPrefix("equals", other);
    return (
      this.family === other.family &&
      this.length === other.length &&
      this.w0 === other.w0 &&
      this.w1 === other.w1 &&
      this.w2 === other.w2 &&
      this.w3 === other.w3
    );
  }

  /** Order by family (IPv4 first), then first address, then length (shorter first). */
  compare(other: Prefix): number {
    if (!(other instanceof Prefix)) throw notPrefix("compare", other);
    if (this.family !== other.family) return this.family === 4 ? -1 : 1;
    const byAddress = compareWords(this.w0, this.w1, this.w2, this.w3, other.w0, other.w1, other.w2, other.w3);
    return byAddress !== 0 ? byAddress : this.length - other.length;
  }

  /** The first (network) address. */
  first(): IPAddress {
    return new IPAddress(this.family, this.w0, this.w1, this.w2, this.w3);
  }

  /** The last address (the IPv4 broadcast address for IPv4). */
  last(): IPAddress {
    const l = this.length;
    if (this.family === 4) return new IPAddress(4, (this.w0 | ~wordMask(l, 0)) >>> 0);
    return new IPAddress(
      6,
      (this.w0 | ~wordMask(l, 0)) >>> 0,
      (this.w1 | ~wordMask(l, 1)) >>> 0,
      (this.w2 | ~wordMask(l, 2)) >>> 0,
      (this.w3 | ~wordMask(l, 3)) >>> 0,
    );
  }

  /** Number of addresses, as a BigInt for both families (IPv6 sizes exceed 2^53). */
  size(): bigint {
    return 1n << BigInt(this.bits - this.length);
  }

  /** The bit of the network address at `position` (0 = most significant). */
  bit(position: number): number {
    return bitAt(this.w0, this.w1, this.w2, this.w3, position);
  }

  /** The half of this prefix whose next bit is `bit` (length + 1). */
  child(bit: 0 | 1): Prefix {
    if (bit !== 0 && bit !== 1) throw new NetworkRegistryError("invalid-argument", `child takes bit 0 or 1, got ${describeValue(bit)}`);
    const l = this.length;
    if (l >= this.bits) throw new NetworkRegistryError("invalid-argument", `${this.toString()} has no subnets`);
    if (bit === 0) return new Prefix(this.family, this.w0, this.w1, this.w2, this.w3, l + 1);
    return this.withBitSet(l, l + 1);
  }

  /** The other half of this prefix's parent (same length). */
  sibling(): Prefix {
    const l = this.length;
    if (l === 0) throw new NetworkRegistryError("invalid-argument", `${this.toString()} has no sibling`);
    return this.withBitFlipped(l - 1);
  }

  /** The enclosing prefix of `newLength` bits (default: one bit shorter). */
  supernet(newLength = this.length - 1): Prefix {
    if (!Number.isInteger(newLength) || newLength < 0 || newLength > this.length) {
      throw new NetworkRegistryError("invalid-argument", `cannot take a /${describeValue(newLength)} supernet of ${this.toString()}`);
    }
    return Prefix.from(this.first(), newLength);
  }

  /** All subnets of `newLength` bits in address order (default: the two halves). */
  split(newLength = this.length + 1): Prefix[] {
    if (!Number.isInteger(newLength) || newLength < this.length || newLength > this.bits) {
      throw new NetworkRegistryError("invalid-argument", `cannot split ${this.toString()} into /${describeValue(newLength)} subnets`);
    }
    const pieces = newLength - this.length;
    if (pieces > 16) {
      throw new NetworkRegistryError(
        "invalid-argument",
        `splitting ${this.toString()} into /${newLength} gives more than ${MAX_SPLIT_PIECES} subnets`,
      );
    }
    const count = 1 << pieces;
    const start = wordsToBigInt(this.family, this.w0, this.w1, this.w2, this.w3);
    const step = 1n << BigInt(this.bits - newLength);
    const result: Prefix[] = [];
    for (let i = 0; i < count; i++) {
      const [w0, w1, w2, w3] = bigIntToWords(this.family, start + BigInt(i) * step);
      result.push(new Prefix(this.family, w0, w1, w2, w3, newLength));
    }
    return result;
  }

  /** This prefix minus `other`: the fewest prefixes covering what remains, in address order. */
  subtract(other: Prefix): Prefix[] {
    if (!(other instanceof Prefix)) throw notPrefix("subtract", other);
    if (!this.overlaps(other)) return [this];
    if (other.contains(this)) return [];
    // `other` is strictly inside: keep the sibling of each ancestor of `other` below this prefix.
    const result: Prefix[] = [];
    for (let length = this.length + 1; length <= other.length; length++) {
      result.push(Prefix.from(other.first(), length).sibling());
    }
    return result.sort((a, b) => a.compare(b));
  }

  private withBitSet(position: number, length: number): Prefix {
    const word = position >>> 5;
    const mask = (1 << (31 - (position & 31))) >>> 0;
    return new Prefix(
      this.family,
      word === 0 ? (this.w0 | mask) >>> 0 : this.w0,
      word === 1 ? (this.w1 | mask) >>> 0 : this.w1,
      word === 2 ? (this.w2 | mask) >>> 0 : this.w2,
      word === 3 ? (this.w3 | mask) >>> 0 : this.w3,
      length,
    );
  }

  private withBitFlipped(position: number): Prefix {
    const word = position >>> 5;
    const mask = (1 << (31 - (position & 31))) >>> 0;
    return new Prefix(
      this.family,
      word === 0 ? (this.w0 ^ mask) >>> 0 : this.w0,
      word === 1 ? (this.w1 ^ mask) >>> 0 : this.w1,
      word === 2 ? (this.w2 ^ mask) >>> 0 : this.w2,
      word === 3 ? (this.w3 ^ mask) >>> 0 : this.w3,
      this.length,
    );
  }
}

function notPrefix(method: string, value: unknown, expected = "a Prefix"): NetworkRegistryError {
  return new NetworkRegistryError("invalid-argument", `${method} takes ${expected}, got ${describeValue(value)}`);
}
