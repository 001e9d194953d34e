import { FakeInstances, type Machines } from "./instances.js";
import { FakeLoadBalancers } from "./load-balancers.js";

/** The fake cloud: instances (the simulated nodes) and load balancers (loopback listeners). */
export class FakeCloud {
  readonly instances: FakeInstances;
  readonly loadBalancers = new FakeLoadBalancers();

  constructor(machines?: Machines) {
    this.instances = new FakeInstances(machines);
  }

  async close(): Promise<void> {
    await this.loadBalancers.close();
  }
}
