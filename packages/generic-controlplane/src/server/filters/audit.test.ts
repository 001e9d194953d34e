import { afterEach, describe, expect, it } from "vitest";
import type { RequestContext } from "../context.js";
import { withAuthentication } from "./authentication.js";
import { withAudit } from "./audit.js";
import { startChain, type ChainServer } from "./test-support.js";

let server: ChainServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the audit stage", () => {
  it("passes every request on as its authenticated user, until it has an implementation", async () => {
    const seen: Pick<RequestContext, "user" | "path">[] = [];
    server = await startChain([withAuthentication(() => ({ name: "alice", groups: [] })), withAudit()], (ctx) => {
      seen.push({ user: ctx.user, path: ctx.path });
      ctx.res.end("served");
    });
    const response = await fetch(`${server.url}/api/v1/namespaces/ns/secrets`, { headers: { "Impersonate-User": "system:admin" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("served");
    expect(seen).toEqual([{ user: { name: "alice", groups: [] }, path: "/api/v1/namespaces/ns/secrets" }]);
  });
});
