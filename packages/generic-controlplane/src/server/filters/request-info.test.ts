import { describe, expect, it } from "vitest";
import type { RequestInfo } from "../request-info.js";
import { withRequestInfo } from "./request-info.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

describe("the request-info filter", () => {
  it("tells later stages what a request addresses", async () => {
    const seen: (RequestInfo | undefined)[] = [];
    const server = await startChain([withRequestInfo()], (ctx) => {
      seen.push(ctx.info);
      ctx.res.end();
    });
    await fetch(`${server.url}/api/v1/namespaces/ns/configmaps/a`, { method: "PUT", body: "{}" });
    await fetch(`${server.url}/apis/coordination.k8s.io/v1/leases?watch=true`);
    await fetch(`${server.url}/readyz`);
    expect(seen[0]).toMatchObject({
      isResourceRequest: true,
      verb: "update",
      group: "",
      version: "v1",
      resource: "configmaps",
      namespace: "ns",
      name: "a",
    });
    expect(seen[1]).toMatchObject({
      isResourceRequest: true,
      verb: "watch",
      group: "coordination.k8s.io",
      resource: "leases",
      namespace: undefined,
    });
    expect(seen[2]).toMatchObject({ isResourceRequest: false, path: "/readyz" });
  });
});
