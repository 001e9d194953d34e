import { describe, expect, it } from "vitest";
import type { RequestContext } from "../context.js";
import { withAudit } from "./audit.js";
import { withAuthentication } from "./authentication.js";
import { withAuthorization } from "./authorization.js";
import type { RequestFilter } from "./chain.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

const SEAMS: [string, () => RequestFilter][] = [
  ["audit", withAudit],
  ["authorization", withAuthorization],
];

describe("the seams without an implementation yet", () => {
  it.each(SEAMS)("%s passes every request on as its authenticated user", async (name, filter) => {
    expect(filter().name).toBe(name);
    const seen: Pick<RequestContext, "user" | "path">[] = [];
    const server = await startChain([withAuthentication(() => ({ name: "alice", groups: [] })), filter()], (ctx) => {
      seen.push({ user: ctx.user, path: ctx.path });
      ctx.res.end("served");
    });
    const response = await fetch(`${server.url}/api/v1/namespaces/ns/secrets`, { headers: { "Impersonate-User": "system:admin" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("served");
    expect(seen).toEqual([{ user: { name: "alice", groups: [] }, path: "/api/v1/namespaces/ns/secrets" }]);
  });
});
