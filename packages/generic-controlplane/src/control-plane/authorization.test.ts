/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../server/test-support.js";

let t: TestPlane;
const admin = { Authorization: "Bearer admin" };

beforeAll(async () => {
  t = await startTestPlane({
    authorization: { modes: ["RBAC"] },
    authenticate: (ctx) =>
      ctx.req.headers.authorization === admin.Authorization
        ? { name: "admin", groups: ["system:masters", "system:authenticated"] }
        : undefined,
    controllers: { leaderElection: false },
  });
});
afterAll(async () => {
  await t.close();
});

describe("authorization with in-process controllers", () => {
  it("lets the controllers act through the loopback identity while anonymous requests are refused", async () => {
    expect((await t.call("GET", "/api/v1/namespaces")).status).toBe(403);
    expect((await t.call("POST", "/api/v1/namespaces", { headers: admin, body: { metadata: { name: "doomed" } } })).status).toBe(201);
    expect(
      (await t.call("POST", "/api/v1/namespaces/doomed/configmaps", { headers: admin, body: { metadata: { name: "c" } } })).status,
    ).toBe(201);
    expect((await t.call("DELETE", "/api/v1/namespaces/doomed", { headers: admin })).status).toBe(200);
    // The namespace controller empties and finalizes it; it could not as an anonymous client.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await t.call("GET", "/api/v1/namespaces/doomed", { headers: admin });
      if (r.status === 404) break;
      if (Date.now() > deadline) throw new Error(`namespace still there: ${JSON.stringify(r.json?.status)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it("the Webhook mode decides after RBAC, and AlwaysDeny denies outright", async () => {
    const webhook = await startTestPlane({
      authorization: {
        modes: ["RBAC", "Webhook"],
        webhook: {
          authorize: (_user, a) =>
            a.resource === "secrets" ? { allowed: false, denied: true, reason: "no secrets here" } : { allowed: a.verb === "list" },
        },
      },
    });
    try {
      expect((await webhook.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
      const secrets = await webhook.call("GET", "/api/v1/namespaces/default/secrets");
      expect(secrets.json.message).toBe(
        'secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "default": no secrets here',
      );
    } finally {
      await webhook.close();
    }
    const deny = await startTestPlane({ authorization: { modes: ["AlwaysDeny"] } });
    try {
      expect((await deny.call("GET", "/version")).status).toBe(403);
    } finally {
      await deny.close();
    }
  });
});
