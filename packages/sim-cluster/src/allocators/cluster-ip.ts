import { badRequest, internalError } from "@kubekit/generic-controlplane";

/**
 * ClusterIP allocation from an IPv4 service CIDR, as kube-apiserver's `ipallocator`: the network
 * and broadcast addresses are never handed out, a random free address is chosen (upstream scans
 * from a random offset), and an address is either free or allocated to exactly one Service.
 */
export class ClusterIPAllocator {
  readonly cidr: string;
  readonly #base: number;
  readonly #size: number;
  readonly #used = new Set<number>();
  readonly #random: (max: number) => number;

  constructor(cidr: string, random: (max: number) => number = (max) => Math.floor(Math.random() * max)) {
    const [address, bits] = cidr.split("/");
    const prefix = Number(bits);
    const base = parseIPv4(address ?? "");
    if (base === undefined || !Number.isInteger(prefix) || prefix < 1 || prefix > 30 || bits !== String(prefix)) {
      throw badRequest(`invalid service CIDR ${JSON.stringify(cidr)}: an IPv4 CIDR with a prefix length of 1 to 30`);
    }
    const mask = (0xffffffff << (32 - prefix)) >>> 0;
    if ((base & ~mask) >>> 0 !== 0) throw badRequest(`invalid service CIDR ${JSON.stringify(cidr)}: host bits are set`);
    this.cidr = cidr;
    this.#base = base;
    this.#size = 2 ** (32 - prefix);
    this.#random = random;
  }

  /** Addresses that can be handed out (the range less its network and broadcast address). */
  get capacity(): number {
    return this.#size - 2;
  }

  get used(): number {
    return this.#used.size;
  }

  contains(ip: string): boolean {
    const value = parseIPv4(ip);
    return value !== undefined && this.#offset(value) !== undefined;
  }

  isAllocated(ip: string): boolean {
    const value = parseIPv4(ip);
    return value !== undefined && this.#used.has(value);
  }

  /** A free address; an error when the range is full (upstream's ErrFull). */
  allocateNext(): string {
    if (this.#used.size >= this.capacity) {
      throw internalError(new Error("failed to allocate a serviceIP: range is full"));
    }
    const start = this.#random(this.capacity);
    for (let i = 0; i < this.capacity; i++) {
      const value = (this.#base + 1 + ((start + i) % this.capacity)) >>> 0;
      if (!this.#used.has(value)) {
        this.#used.add(value);
        return formatIPv4(value);
      }
    }
    throw internalError(new Error("failed to allocate a serviceIP: range is full"));
  }

  /**
   * Takes `ip` as asked. The errors are upstream's (`pkg/registry/core/service/ipallocator`):
   * `provided IP is already allocated` and `the provided IP (<ip>) is not in the valid range. The range of valid IPs is <cidr>`.
   */
  allocate(ip: string): void {
    const value = parseIPv4(ip);
    if (value === undefined || this.#offset(value) === undefined) {
      throw new AllocationError(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr}`);
    }
    if (this.#used.has(value)) throw new AllocationError("provided IP is already allocated");
    this.#used.add(value);
  }

  /** The addresses handed out, in no particular order. */
  *allocated(): Generator<string> {
    for (const value of this.#used) yield formatIPv4(value);
  }

  /** Frees `ip`; freeing a free or foreign address does nothing (upstream's Release). */
  release(ip: string): void {
    const value = parseIPv4(ip);
    if (value !== undefined) this.#used.delete(value);
  }

  #offset(value: number): number | undefined {
    const offset = value - this.#base;
    return offset >= 1 && offset <= this.capacity ? offset : undefined;
  }
}

/** A requested address or port that cannot be had; the service strategy turns it into a field error. */
export class AllocationError extends Error {
  override readonly name = "AllocationError";
}

export function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    // Canonical decimal octets only, as Go's netip: no leading zeros, no signs.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}
