/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterEach, describe, expect, it } from "vitest";
import { createCertificateAuthority, issueClientCertificate } from "../certs/authority.js";
import { startSecurePlane, type SecurePlane } from "./test-support.js";

const planes: SecurePlane[] = [];
afterEach(async () => {
  await Promise.all(planes.splice(0).map((p) => p.close()));
});

async function start(...args: Parameters<typeof startSecurePlane>): Promise<SecurePlane> {
  const plane = await startSecurePlane(...args);
  planes.push(plane);
  return plane;
}

const UNAUTHORIZED = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};
const WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

describe("authentication over HTTPS", () => {
  it("authenticates a client certificate as its CN with its O groups plus system:authenticated", async () => {
    const t = await start();
    expect(t.plane.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const review = await t.asAdmin("POST", WHOAMI, {});
    expect(review.status).toBe(201);
    expect(review.json.status.userInfo).toEqual({ username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] });
    const jane = await issueClientCertificate(t.ca, { name: "jane", groups: ["devs", "ops"] });
    expect((await t.call("POST", WHOAMI, { client: jane }, {})).json.status.userInfo).toEqual({
      username: "jane",
      groups: ["devs", "ops", "system:authenticated"],
    });
  });

  it("authenticates client certificates whenever tls.clientCA is given, even without an authentication option", async () => {
    // startSecurePlane gives a client CA and no authentication option.
    const t = await start();
    const review = await t.asAdmin("POST", WHOAMI, {});
    expect(review.json.status.userInfo).toEqual({ username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] });
    expect((await t.call("GET", "/api/v1/namespaces")).status).toBe(401);
  });

  it("answers 401 for a certificate from another CA rather than treating the request as anonymous", async () => {
    const t = await start();
    const foreign = await issueClientCertificate(await createCertificateAuthority("elsewhere"), {
      name: "kubernetes-admin",
      groups: ["system:masters"],
    });
    for (const path of ["/api/v1/namespaces", "/version", "/healthz"]) {
      const reply = await t.call("GET", path, { client: foreign });
      expect([path, reply.status, reply.json]).toEqual([path, 401, UNAUTHORIZED]);
    }
  });

  it("lets requests without credentials reach health, version and discovery only, as system:anonymous", async () => {
    const t = await start();
    for (const path of [
      "/healthz",
      "/livez",
      "/readyz?verbose",
      "/version",
      "/api",
      "/api/v1",
      "/apis",
      "/apis/coordination.k8s.io",
      "/apis/coordination.k8s.io/v1",
      "/openapi/v3",
    ]) {
      expect([path, (await t.call("GET", path)).status]).toEqual([path, 200]);
    }
    for (const [method, path] of [
      ["GET", "/api/v1/namespaces"],
      ["GET", "/api/v1/namespaces/default/configmaps"],
      ["POST", WHOAMI],
      ["GET", "/metrics"],
    ] as const) {
      const reply = await t.call(method, path, {}, method === "POST" ? {} : undefined);
      expect([path, reply.status, reply.json]).toEqual([path, 401, UNAUTHORIZED]);
    }
  });

  it('lets every anonymous request through to the authorizer with anonymous: "*", and none with anonymous: false', async () => {
    const open = await start({ authentication: { anonymous: "*" } });
    const whoami = await open.call("POST", WHOAMI, {}, {});
    expect(whoami.json.status.userInfo).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    const closed = await start({ authentication: { anonymous: false } });
    expect((await closed.call("GET", "/healthz")).status).toBe(401);
  });

  it("authenticates static tokens from a kube token file, and answers 401 for unknown or empty bearer tokens", async () => {
    const t = await start({ authentication: { tokenFile: 'secret-1,alice,uid-alice,"devs,ops"\nsecret-2,bob,uid-bob\n' } });
    expect((await t.call("POST", WHOAMI, { token: "secret-1" }, {})).json.status.userInfo).toEqual({
      username: "alice",
      uid: "uid-alice",
      groups: ["devs", "ops", "system:authenticated"],
    });
    expect((await t.call("POST", WHOAMI, { token: "secret-2" }, {})).json.status.userInfo).toEqual({
      username: "bob",
      uid: "uid-bob",
      groups: ["system:authenticated"],
    });
    for (const token of ["secret-3", "secret-1x"]) {
      const reply = await t.call("GET", "/version", { token });
      expect([token, reply.status, reply.json]).toEqual([token, 401, UNAUTHORIZED]);
    }
    // As upstream: a lone "Bearer" is no bearer token (anonymous may proceed); an empty one between spaces is refused.
    expect((await t.call("GET", "/version", { headers: { Authorization: "Bearer " } })).status).toBe(200);
    expect((await t.call("GET", "/version", { headers: { Authorization: "Bearer  secret-1" } })).status).toBe(401);
  });

  it("impersonates for a user the authorizer allows, and gives upstream's 403 to one it does not", async () => {
    const t = await start({
      authentication: { tokenFile: "viewer-token,viewer,uid-viewer,viewers\n" },
      authorizer: {
        authorize: (user, attributes) => ({ allowed: attributes.verb !== "impersonate" || user.groups.includes("system:masters") }),
      },
    });
    const asJane = await t.asAdmin("POST", WHOAMI, {}, { "Impersonate-User": "jane", "Impersonate-Group": ["devs"] });
    expect(asJane.json.status.userInfo).toEqual({ username: "jane", groups: ["devs", "system:authenticated"] });
    const denied = await t.call("POST", WHOAMI, { token: "viewer-token", headers: { "Impersonate-User": "jane" } }, {});
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe(
      'users "jane" is forbidden: User "viewer" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it("keeps in-process controllers working when requests are authenticated (their loopback identity)", async () => {
    const t = await start({ controllers: { controllers: ["namespace"], leaderElection: false } });
    expect((await t.asAdmin("POST", "/api/v1/namespaces", { metadata: { name: "doomed" } })).status).toBe(201);
    expect((await t.asAdmin("DELETE", "/api/v1/namespaces/doomed")).status).toBe(200);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const status = (await t.asAdmin("GET", "/api/v1/namespaces/doomed")).status;
      if (status === 404) break;
      if (Date.now() > deadline)
        throw new Error(`namespace doomed still there (${status}) after 10 s: the namespace controller could not finish it`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});
