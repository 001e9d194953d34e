import { randomInt } from "node:crypto";

/**
 * Load balancer VIPs from a /16 of 127.0.0.0/8 (Linux routes all of it to `lo`, so they bind
 * without setup). The /16 is random so fake clouds side by side do not collide; released
 * addresses are not handed out again within a run, so an old VIP never answers for a new LB.
 */
export class AddressPool {
  readonly prefix: string;
  readonly secondOctet: number;
  #next = 1;

  constructor(secondOctet = randomInt(160, 250)) {
    this.secondOctet = secondOctet;
    this.prefix = `127.${secondOctet}`;
  }

  allocate(): string {
    const n = this.#next++;
    if (n >= 65_534) throw new Error(`load balancer address pool ${this.prefix}.0.0/16 is exhausted`);
    return `${this.prefix}.${n >> 8}.${n & 255}`;
  }
}
