import { badRequest, internalError } from "@kubekit/generic-controlplane";
import { AllocationError } from "./cluster-ip.js";

/** kube-apiserver's default `--service-node-port-range`. */
export const DEFAULT_NODE_PORT_RANGE = { base: 30000, size: 2768 } as const;

/**
 * NodePort allocation from a port range, as kube-apiserver's `portallocator`: a port is either
 * free or held by one Service, random free ports for Services that ask for none, and upstream's
 * error wording for ports that cannot be had.
 */
export class NodePortAllocator {
  readonly base: number;
  readonly size: number;
  readonly #used = new Set<number>();
  readonly #random: (max: number) => number;

  constructor(
    range: { base: number; size: number } = DEFAULT_NODE_PORT_RANGE,
    random: (max: number) => number = (max) => Math.floor(Math.random() * max),
  ) {
    if (
      !Number.isInteger(range.base) ||
      !Number.isInteger(range.size) ||
      range.base < 1 ||
      range.size < 1 ||
      range.base + range.size - 1 > 65535
    ) {
      throw badRequest(`invalid node port range ${range.base}-${range.base + range.size - 1}`);
    }
    this.base = range.base;
    this.size = range.size;
    this.#random = random;
  }

  /** The range as kube-apiserver prints it (`30000-32767`). */
  get range(): string {
    return `${this.base}-${this.base + this.size - 1}`;
  }

  get used(): number {
    return this.#used.size;
  }

  isAllocated(port: number): boolean {
    return this.#used.has(port);
  }

  allocateNext(): number {
    if (this.#used.size >= this.size) throw internalError(new Error("failed to allocate a nodePort: range is full"));
    const start = this.#random(this.size);
    for (let i = 0; i < this.size; i++) {
      const port = this.base + ((start + i) % this.size);
      if (!this.#used.has(port)) {
        this.#used.add(port);
        return port;
      }
    }
    throw internalError(new Error("failed to allocate a nodePort: range is full"));
  }

  /** Takes `port` as asked, with upstream's `provided port is already allocated` / `provided port is not in the valid range. The range of valid ports is 30000-32767`. */
  allocate(port: number): void {
    if (port < this.base || port >= this.base + this.size) {
      throw new AllocationError(`provided port is not in the valid range. The range of valid ports is ${this.range}`);
    }
    if (this.#used.has(port)) throw new AllocationError("provided port is already allocated");
    this.#used.add(port);
  }

  release(port: number): void {
    this.#used.delete(port);
  }
}
