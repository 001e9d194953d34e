import { formatIP as formatAddress, parseIP as parseAddress } from "@kubekit/apimachinery";
import { badRequest, internalError } from "@kubekit/generic-controlplane";

export type IPFamily = "IPv4" | "IPv6";

/** An address as a number of its family (IPv4 32 bits, IPv6 128 bits). */
export interface ParsedIP {
  family: IPFamily;
  value: bigint;
}

/**
 * ClusterIP allocation from a service CIDR of either family, as kube-apiserver's `ipallocator`:
 * the network address (and an IPv4 range's broadcast address) is never handed out, an IPv6 range
 * is capped at 65,536 addresses (upstream keeps a bitmap of that size), a random free address is
 * chosen (upstream scans from a random offset), and an address is either free or allocated to
 * exactly one Service. Pod IPs of a node's range are handed out the same way.
 */
export class ClusterIPAllocator {
  readonly cidr: string;
  readonly family: IPFamily;
  readonly #base: bigint;
  readonly #capacity: number;
  readonly #used = new Set<bigint>();
  readonly #random: (max: number) => number;

  constructor(cidr: string, random: (max: number) => number = (max) => Math.floor(Math.random() * max)) {
    const [address, bits] = cidr.split("/");
    const prefix = Number(bits);
    const base = parseIP(address ?? "");
    const width = base?.family === "IPv6" ? 128 : 32;
    if (base === undefined || !Number.isInteger(prefix) || prefix < 1 || prefix > width - 2 || bits !== String(prefix)) {
      throw badRequest(
        `invalid service CIDR ${JSON.stringify(cidr)}: an IPv4 CIDR with a prefix length of 1 to 30 or an IPv6 CIDR with one of 1 to 126`,
      );
    }
    const hostBits = BigInt(width - prefix);
    if (base.value & ((1n << hostBits) - 1n)) throw badRequest(`invalid service CIDR ${JSON.stringify(cidr)}: host bits are set`);
    this.cidr = cidr;
    this.family = base.family;
    this.#base = base.value;
    // The network address is never handed out; nor is an IPv4 range's broadcast address.
    this.#capacity = base.family === "IPv4" ? 2 ** Number(hostBits) - 2 : Math.min(2 ** Number(hostBits), 65_536) - 1;
    this.#random = random;
  }

  /** The range's first address (the `kubernetes` Service's, as kube-apiserver takes it). */
  get firstAddress(): string {
    return formatIP({ family: this.family, value: this.#base + 1n });
  }

  /** Addresses that can be handed out (the range less its network address, and an IPv4 range's broadcast address). */
  get capacity(): number {
    return this.#capacity;
  }

  get used(): number {
    return this.#used.size;
  }

  contains(ip: string): boolean {
    const parsed = parseIP(ip);
    return parsed !== undefined && parsed.family === this.family && this.#offset(parsed.value) !== undefined;
  }

  isAllocated(ip: string): boolean {
    const parsed = parseIP(ip);
    return parsed !== undefined && parsed.family === this.family && this.#used.has(parsed.value);
  }

  /** A free address; an error when the range is full (upstream's ErrFull). */
  allocateNext(): string {
    if (this.#used.size >= this.capacity) {
      throw internalError(new Error("failed to allocate a serviceIP: range is full"));
    }
    const start = this.#random(this.capacity);
    for (let i = 0; i < this.capacity; i++) {
      const value = this.#base + 1n + BigInt((start + i) % this.capacity);
      if (!this.#used.has(value)) {
        this.#used.add(value);
        return formatIP({ family: this.family, value });
      }
    }
    throw internalError(new Error("failed to allocate a serviceIP: range is full"));
  }

  /**
   * Takes `ip` as asked. The errors are upstream's (`pkg/registry/core/service/ipallocator`):
   * `provided IP is already allocated` and `the provided IP (<ip>) is not in the valid range. The range of valid IPs is <cidr>`.
   */
  allocate(ip: string): void {
    const parsed = parseIP(ip);
    if (parsed === undefined || parsed.family !== this.family || this.#offset(parsed.value) === undefined) {
      throw new AllocationError(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr}`);
    }
    if (this.#used.has(parsed.value)) throw new AllocationError("provided IP is already allocated");
    this.#used.add(parsed.value);
  }

  /** The addresses handed out, in no particular order. */
  *allocated(): Generator<string> {
    for (const value of this.#used) yield formatIP({ family: this.family, value });
  }

  /** Frees `ip`; freeing a free or foreign address does nothing (upstream's Release). */
  release(ip: string): void {
    const parsed = parseIP(ip);
    if (parsed !== undefined && parsed.family === this.family) this.#used.delete(parsed.value);
  }

  #offset(value: bigint): number | undefined {
    const offset = value - this.#base;
    return offset >= 1n && offset <= BigInt(this.capacity) ? Number(offset) : undefined;
  }
}

/** A requested address or port that cannot be had; the service strategy turns it into a field error. */
export class AllocationError extends Error {
  override readonly name = "AllocationError";
}

/** A canonical dotted-decimal IPv4 address (Go's netip rules) as a 32-bit number, or undefined. */
export function parseIPv4(text: string): number | undefined {
  const ip = parseIP(text);
  return ip?.family === "IPv4" ? Number(ip.value) : undefined;
}

export function formatIPv4(value: number): string {
  return formatIP({ family: "IPv4", value: BigInt(value >>> 0) });
}

/** An IPv4 or IPv6 address (no zone), or undefined, read as Go's netip reads it (no leading zeros). */
export function parseIP(text: string): ParsedIP | undefined {
  const ip = parseAddress(text);
  if (ip === undefined || ip.zone !== "") return undefined;
  let value = 0n;
  for (const byte of ip.bytes) value = (value << 8n) | BigInt(byte);
  return { family: ip.family === 4 ? "IPv4" : "IPv6", value };
}

/** The address in its canonical form (an IPv6 address as RFC 5952, as Go prints it). */
export function formatIP(ip: ParsedIP): string {
  const length = ip.family === "IPv4" ? 4 : 16;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Number((ip.value >> BigInt(8 * (length - 1 - i))) & 0xffn);
  return formatAddress({ family: ip.family === "IPv4" ? 4 : 6, bytes, zone: "", mapped: false });
}

/** The family of an address, or undefined when it is none. */
export function familyOf(ip: string): IPFamily | undefined {
  return parseIP(ip)?.family;
}
