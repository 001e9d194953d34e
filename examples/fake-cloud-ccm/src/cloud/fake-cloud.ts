import { FakeInstances, type Machines } from "./instances.js";
import { FakeLoadBalancers } from "./load-balancers.js";

/** How the cloud moves the cluster to another version (versions such as `1.33.1`). */
export interface ClusterUpgrades {
  controlPlane(version: string): Promise<void>;
  nodes(version: string): Promise<void>;
}

/** The fake cloud: instances (the simulated nodes), load balancers (loopback listeners), and cluster upgrades when given. */
export class FakeCloud {
  readonly instances: FakeInstances;
  readonly loadBalancers = new FakeLoadBalancers();

  constructor(
    machines?: Machines,
    readonly upgrades?: ClusterUpgrades,
  ) {
    this.instances = new FakeInstances(machines);
  }

  async close(): Promise<void> {
    await this.loadBalancers.close();
  }
}
