import { expectEqual } from "../framework/assert.js";
import type { SuiteTest } from "../framework/registry.js";
import { SERVICES, type Service } from "../framework/resources.js";

const SIG = "[sig-network] Services";

/**
 * Ports `[sig-network] Services should delete a collection of services [Conformance]`
 * (test/e2e/network/service.go): three ClusterIP services labelled delete, delete, keep; a
 * DeleteCollection by label leaves only the one to keep.
 */
const deleteCollection: SuiteTest = {
  name: `${SIG} should delete a collection of services [Conformance]`,
  upstream: "test/e2e/network/service.go",
  requires: {},
  async run(ctx) {
    const labels = ["delete", "delete", "keep"];
    ctx.step("creating a collection of services");
    for (const [i, value] of labels.entries()) {
      const service: Service = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: `e2e-svc-${"abc"[i]}-${i}`, labels: { "e2e-test-service": value } },
        spec: { type: "ClusterIP", ports: [{ name: "http", protocol: "TCP", port: 8001 + i, targetPort: 80 }] },
      };
      await ctx.client.create(SERVICES, ctx.namespace, service);
    }
    const listed = await ctx.client.list<Service>(SERVICES, ctx.namespace, { labelSelector: "e2e-test-service" });
    expectEqual(listed.items.length, 3, "failed to create the services: listing by label");

    ctx.step("deleting service collection");
    await ctx.client.deleteCollection(SERVICES, ctx.namespace, {}, { labelSelector: "e2e-test-service=delete" });
    const remaining = await ctx.client.list<Service>(SERVICES, ctx.namespace, { labelSelector: "e2e-test-service" });
    expectEqual(remaining.items.length, 1, "failed to delete the service collection");
    expectEqual(remaining.items[0]?.metadata.labels?.["e2e-test-service"], "keep", "the service left is not the one to keep");
  },
};

export const servicesTests: SuiteTest[] = [deleteCollection];
