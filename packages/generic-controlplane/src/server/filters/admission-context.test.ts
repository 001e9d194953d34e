import { Agent, request } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { currentAdmissionRequestContext } from "../../admission/request-context.js";
import type { RequestContext } from "../context.js";
import { withAdmissionRequestContext } from "./admission-context.js";
import type { RequestFilter } from "./chain.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const asAlice: RequestFilter = {
  name: "as-alice",
  handle(ctx, next) {
    ctx.user = { name: "alice", groups: ["system:authenticated"] };
    return next(ctx);
  },
};

/** One GET over `agent`, answered in full. */
function get(agent: Agent, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("the admission request context", () => {
  it("shows admission the user as the filters before it left it, and carries warnings and audit annotations back", async () => {
    let served: RequestContext | undefined;
    const server = await startChain([asAlice, withAdmissionRequestContext()], async (ctx) => {
      served = ctx;
      await new Promise((resolve) => setImmediate(resolve));
      const admission = currentAdmissionRequestContext();
      admission?.addWarning("deprecated field");
      admission?.addAuditAnnotation("example.com/decision", "allowed");
      ctx.res.end(admission?.user?.name ?? "nobody");
    });
    expect(await (await fetch(`${server.url}/x`)).text()).toBe("alice");
    expect(served?.warnings).toHaveLength(1);
    expect(served?.warnings[0]).toContain("deprecated field");
    expect(served?.auditAnnotations).toEqual({ "example.com/decision": "allowed" });
  });

  it("does not keep a finished request alive while its keep-alive connection idles", async () => {
    let finished: WeakRef<object> | undefined;
    const server = await startChain([asAlice, withAdmissionRequestContext()], (ctx) => {
      finished = new WeakRef(ctx);
      ctx.res.end("done");
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await get(agent, `${server.url}/first`)).body).toBe("done");
      // The connection stays open and idle; the request it served is over.
      await new Promise((resolve) => setTimeout(resolve, 20));
      // deref() keeps its target alive until the current job ends, so collect first, look after.
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(finished?.deref()).toBeUndefined();
      expect(agent.freeSockets[Object.keys(agent.freeSockets)[0] ?? ""]).toHaveLength(1);
    } finally {
      agent.destroy();
    }
  });
});
