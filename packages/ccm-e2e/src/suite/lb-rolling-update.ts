import { fail, skip } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { AGNHOST_IMAGE, ingressPoint, TestJig } from "../framework/jig.js";
import { readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import { testReachableHTTP } from "../framework/reachability.js";
import type { SuiteTest } from "../framework/registry.js";
import { DAEMONSETS } from "../framework/resources.js";
import { LOAD_BALANCERS } from "./lb-names.js";

/** Upstream's success rate for one rollout window (the goal is 99 %). */
const MIN_SUCCESS_RATE = 0.95;
const ROLLOUTS = 5;
const REQUEST_TIMEOUT_MS = 5000;

interface DaemonSetStatus {
  [field: string]: unknown;
  metadata: { generation?: number };
  status?: { observedGeneration?: number; desiredNumberScheduled?: number; updatedNumberScheduled?: number; numberAvailable?: number };
}

/**
 * `testRollingUpdateLBConnectivityDisruption`: a netexec DaemonSet (`--delay-shutdown`, an equal
 * grace period, maxUnavailable 10%) behind a LoadBalancer; back-to-back GETs without keep-alive
 * run through five rollouts, and each rollout's window must see at least 95 % successes. The
 * 60 s grace period is scaled by the driver's `timeoutScale`.
 */
async function rollingUpdate(ctx: TestContext, policy: "Cluster" | "Local"): Promise<void> {
  const nodes = await readySchedulableNodes(ctx.client);
  if (nodes.length < 2) skip("load-balancer rolling update test requires at least 2 schedulable nodes for the DaemonSet");
  if (nodes.length > 25) skip("load-balancer rolling update test skipped for large environments with more than 25 nodes");
  const name = "test-lb-rolling-update";
  const labels = { name };
  const gracePeriod = Math.max(1, Math.round(60 * (ctx.driver.timeoutScale ?? 1)));
  const template = (version: number) => ({
    metadata: { labels },
    spec: {
      terminationGracePeriodSeconds: gracePeriod,
      containers: [
        {
          name: "app",
          image: AGNHOST_IMAGE,
          args: ["netexec", "--http-port=80", `--delay-shutdown=${gracePeriod}`],
          ports: [{ containerPort: 80 }],
          env: [{ name: "VERSION", value: String(version) }],
          readinessProbe: { periodSeconds: 3, httpGet: { path: "/readyz", port: 80 } },
        },
      ],
    },
  });
  ctx.step(`Creating DaemonSet ${JSON.stringify(name)}`);
  await ctx.client.create(DAEMONSETS, ctx.namespace, {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, labels },
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "10%" } },
      template: template(0),
    },
  });
  const rolledOut = (what: string) =>
    poll(what, { timeoutMs: ctx.timeouts.lbCreate, signal: ctx.signal }, async (note) => {
      const ds = await ctx.client.get<DaemonSetStatus>(DAEMONSETS, ctx.namespace, name);
      const s = ds.status ?? {};
      note(JSON.stringify(s));
      const desired = s.desiredNumberScheduled ?? -1;
      return (s.observedGeneration ?? 0) >= (ds.metadata.generation ?? 1) &&
        desired >= nodes.length &&
        s.updatedNumberScheduled === desired &&
        s.numberAvailable === desired
        ? true
        : undefined;
    });
  ctx.step("Checking that daemon pods launch on every schedulable node of the cluster");
  await rolledOut("daemon pods on every schedulable node");

  ctx.step(`Creating a service ${name} with type=LoadBalancer and externalTrafficPolicy=${policy}`);
  const jig = new TestJig(ctx, name);
  const svc = await jig.createLoadBalancerService(ctx.timeouts.lbCreate, (s) => {
    s.spec.selector = { ...labels };
    s.spec.externalTrafficPolicy = policy;
  });
  const ingress = ingressPoint(svc);
  const port = svc.spec.ports![0]!.port;
  await testReachableHTTP(ctx.external, ingress, port, ctx.timeouts.lbLag, ctx.signal);

  ctx.step("Starting a goroutine to continuously hit the DaemonSet's pods through the service's load balancer");
  let total = 0;
  let networkErrors = 0;
  let httpErrors = 0;
  let stopped = false;
  const traffic = (async () => {
    while (!stopped && !ctx.signal.aborted) {
      total++;
      try {
        const response = await ctx.external.httpGet(ingress, port, "/echo?msg=hello", { timeoutMs: REQUEST_TIMEOUT_MS });
        if (response.status !== 200 || response.body.trim() !== "hello") httpErrors++;
      } catch {
        networkErrors++;
      }
    }
  })();
  try {
    for (let i = 1; i <= ROLLOUTS; i++) {
      const [startTotal, startNetwork, startHttp] = [total, networkErrors, httpErrors];
      ctx.step(`Triggering DaemonSet rolling update several times (${i}/${ROLLOUTS})`);
      await ctx.client.patch(DAEMONSETS, ctx.namespace, name, { spec: { template: template(i) } });
      ctx.step("Waiting for DaemonSet pods to become ready");
      await rolledOut(`rollout ${i} of the DaemonSet`);
      const requests = total - startTotal;
      const failures = networkErrors - startNetwork + (httpErrors - startHttp);
      const rate = requests === 0 ? 0 : (requests - failures) / requests;
      ctx.log(
        `rollout ${i}: ${requests} requests, ${networkErrors - startNetwork} network errors, ${httpErrors - startHttp} HTTP errors, success rate ${rate.toFixed(4)}`,
      );
      if (rate < MIN_SUCCESS_RATE)
        fail(
          `Encountered too many errors during rolling update: success rate ${rate.toFixed(4)} is lower than the minimum ${MIN_SUCCESS_RATE} (${failures} of ${requests} requests failed)`,
        );
    }
  } finally {
    stopped = true;
    await traffic;
  }
  ctx.step("Checking the load balancer is still reachable");
  await testReachableHTTP(ctx.external, ingress, port, ctx.timeouts.lbLag, ctx.signal);
}

function rolling(policy: "Cluster" | "Local"): SuiteTest {
  return {
    name: `${LOAD_BALANCERS} should not have connectivity disruption during rolling update with externalTrafficPolicy=${policy} [Slow]`,
    upstream: "test/e2e/network/loadbalancer.go",
    requires: {
      capabilities:
        policy === "Local" ? ["loadBalancer", "externalTrafficPolicyLocal", "serviceTraffic"] : ["loadBalancer", "serviceTraffic"],
    },
    run: (ctx) => rollingUpdate(ctx, policy),
  };
}

/** Ports the two `should not have connectivity disruption during rolling update with externalTrafficPolicy=Cluster|Local [Slow]` tests. */
export const rollingUpdateTests: SuiteTest[] = [rolling("Cluster"), rolling("Local")];
