import { AuthenticationV1Api, CoreV1Api, FlowcontrolApiserverV1Api, KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { useSimCluster } from "./fixture.js";
import { kubectl } from "./kubectl.js";

// The cluster's admin is exempt from flow control, as upstream's `exempt` flow schema exempts
// system:masters, so an operator's reads do not queue behind the cluster's workload.
const sim = useSimCluster({ nodes: 1 });

/** `@kubernetes/client-node` against the cluster, with `token` when given (sent over plain HTTP as TLS is not verified). */
function clientConfig(token?: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: "sim", server: sim.cluster.url, skipTLSVerify: true }],
    users: [{ name: "user", ...(token !== undefined ? { token } : {}) }],
    contexts: [{ name: "sim", cluster: "sim", user: "user" }],
    currentContext: "sim",
  });
  return config;
}

/** The flow schema and priority level flow control named for a request, as UIDs. */
function classification(headers: Record<string, string>) {
  return { flowSchema: headers["x-kubernetes-pf-flowschema-uid"], priorityLevel: headers["x-kubernetes-pf-prioritylevel-uid"] };
}

/** The UIDs of the flow schema and priority level of those names. */
async function uids(name: { flowSchema: string; priorityLevel: string }) {
  const flowcontrol = clientConfig().makeApiClient(FlowcontrolApiserverV1Api);
  return {
    flowSchema: (await flowcontrol.readFlowSchema({ name: name.flowSchema })).metadata?.uid,
    priorityLevel: (await flowcontrol.readPriorityLevelConfiguration({ name: name.priorityLevel })).metadata?.uid,
  };
}

describe("the cluster's admin token", { timeout: 60_000 }, () => {
  it("authenticates as kubernetes-admin in system:masters", async () => {
    const review = await clientConfig(sim.cluster.adminToken)
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(review.status?.userInfo).toEqual({ username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] });
  });

  it("is answered by the exempt flow schema and priority level", async () => {
    const answer = await clientConfig(sim.cluster.adminToken).makeApiClient(CoreV1Api).readNamespaceWithHttpInfo({ name: "default" });
    expect(answer.httpStatusCode).toBe(200);
    expect(classification(answer.headers)).toEqual(await uids({ flowSchema: "exempt", priorityLevel: "exempt" }));
  });

  it("leaves a client without it anonymous, in global-default", async () => {
    const answer = await clientConfig().makeApiClient(CoreV1Api).readNamespaceWithHttpInfo({ name: "default" });
    expect(answer.httpStatusCode).toBe(200);
    const classified = classification(answer.headers);
    expect(classified).toEqual(await uids({ flowSchema: "global-default", priorityLevel: "global-default" }));
    expect(classified).not.toEqual(await uids({ flowSchema: "exempt", priorityLevel: "exempt" }));
  });

  it("leaves the cluster's kubeconfig anonymous: kubectl sends no credentials over plain HTTP", async () => {
    const result = await kubectl(sim.kubeconfig, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    expect(result).toMatchObject({ code: 0, stdout: "system:anonymous" });
  });
});
