import { describeValue } from "./describe-value.js";
import { NetworkRegistryError } from "./errors.js";
import { formatIPv6Words } from "@kubekit/apimachinery";
import { formatIPv4, isWord, wordsToBigInt, compareWords, type IPFamily } from "./words.js";

/**
 * A parsed IP address. Held as four big-endian 32-bit words (`w0` … `w3`); IPv4 uses `w0` only.
 * Create one with {@link parseAddress}.
 */
export class IPAddress {
  readonly family: IPFamily;
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;

  /** Words must already be unsigned 32-bit integers; IPv4 passes 0 for `w1`…`w3`. */
  constructor(family: IPFamily, w0: number, w1 = 0, w2 = 0, w3 = 0) {
    if (
      (family !== 4 && family !== 6) ||
      !isWord(w0) ||
      !isWord(w1) ||
      !isWord(w2) ||
      !isWord(w3) ||
      (family === 4 && (w1 | w2 | w3) !== 0)
    ) {
      throw new NetworkRegistryError(
        "invalid-argument",
        `an IPAddress needs family 4 or 6 and unsigned 32-bit words (IPv4 uses w0 only), got ${describeValue(family)}, ${[w0, w1, w2, w3].map(describeValue).join(", ")}`,
      );
    }
    this.family = family;
    this.w0 = w0;
    this.w1 = w1;
    this.w2 = w2;
    this.w3 = w3;
  }

  /** Canonical text: dotted decimal for IPv4, RFC 5952 for IPv6. */
  toString(): string {
    return this.family === 4 ? formatIPv4(this.w0) : formatIPv6Words(this.w0, this.w1, this.w2, this.w3);
  }

  toJSON(): string {
    return this.toString();
  }

  /** The address as an unsigned integer. */
  toBigInt(): bigint {
    return wordsToBigInt(this.family, this.w0, this.w1, this.w2, this.w3);
  }

  equals(other: IPAddress): boolean {
    if (!(other instanceof IPAddress))
      throw new NetworkRegistryError("invalid-argument", `equals takes an IPAddress, got ${describeValue(other)}`);
    return this.family === other.family && this.w0 === other.w0 && this.w1 === other.w1 && this.w2 === other.w2 && this.w3 === other.w3;
  }

  /** Address order, IPv4 before IPv6. */
  compare(other: IPAddress): number {
    if (!(other instanceof IPAddress))
      throw new NetworkRegistryError("invalid-argument", `compare takes an IPAddress, got ${describeValue(other)}`);
    if (this.family !== other.family) return this.family === 4 ? -1 : 1;
    return compareWords(this.w0, this.w1, this.w2, this.w3, other.w0, other.w1, other.w2, other.w3);
  }
}
