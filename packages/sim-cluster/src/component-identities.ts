import { randomBytes } from "node:crypto";
import { ADMIN_USER, type ControlPlaneOptions } from "@kubekit/generic-controlplane";

type Authenticate = NonNullable<ControlPlaneOptions["authenticate"]>;
type UserInfo = NonNullable<Awaited<ReturnType<Authenticate>>>;

/**
 * Who the cluster's own components are to its API server: each kubelet `system:node:<node>` in
 * `system:nodes`, the controllers (and the scheduler when it runs among them)
 * `system:kube-controller-manager`, a scheduler in a thread of its own `system:kube-scheduler`, as
 * upstream's components present themselves. Flow control then gives them upstream's priority levels
 * (`node-high` and `system` for kubelets, `workload-high` for controllers and the scheduler) instead of
 * queuing them with every anonymous client in `global-default`; the cluster's admin is
 * `kubernetes-admin` in `system:masters`, whom flow control exempts. Each identity is a bearer token
 * known only to this process; any other request stays anonymous, as before.
 */
export class ComponentIdentities {
  readonly #secret = randomBytes(16).toString("hex");
  readonly #users = new Map<string, UserInfo>();
  readonly #tokens = new Map<string, string>();

  readonly authenticate: Authenticate = (ctx) => {
    const header = ctx.req.headers.authorization;
    if (header === undefined || !header.startsWith("Bearer ")) return undefined;
    return this.#users.get(header.slice("Bearer ".length));
  };

  /** A token that authenticates as `name` in `groups` (and `system:authenticated`). */
  tokenFor(name: string, groups: readonly string[]): string {
    let token = this.#tokens.get(name);
    if (token === undefined) {
      token = `${this.#secret}.${this.#users.size}`;
      this.#tokens.set(name, token);
      this.#users.set(token, { name, groups: [...groups, "system:authenticated"] });
    }
    return token;
  }

  kubelet(nodeName: string): string {
    return this.tokenFor(`system:node:${nodeName}`, ["system:nodes"]);
  }

  admin(): string {
    return this.tokenFor(ADMIN_USER.name, ADMIN_USER.groups);
  }

  controllerManager(): string {
    return this.tokenFor("system:kube-controller-manager", []);
  }

  scheduler(): string {
    return this.tokenFor("system:kube-scheduler", []);
  }
}
