import { request } from "node:http";
import { describe, expect, it } from "vitest";
import type { AuthorizationAttributes, Authorizer, UserInfo } from "../access-reviews.js";
import { withAuthentication } from "./authentication.js";
import { withImpersonation } from "./impersonation.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

const BOB: UserInfo = { name: "bob", groups: ["devs", "system:authenticated"] };

/** Records every check and allows what `allow` says. */
function recordingAuthorizer(allow: (attributes: AuthorizationAttributes) => boolean, reason?: string) {
  const checks: Array<{ user: string; attributes: AuthorizationAttributes }> = [];
  const authorizer: Authorizer = {
    authorize(user, attributes) {
      checks.push({ user: user.name, attributes });
      return allow(attributes) ? { allowed: true } : { allowed: false, ...(reason ? { reason } : {}) };
    },
  };
  return { authorizer, checks };
}

async function serve(authorizer: Authorizer | undefined) {
  const seen: Array<{ user: UserInfo | undefined; headers: string[] }> = [];
  const server = await startChain([withAuthentication(() => BOB), withImpersonation(authorizer)], (ctx) => {
    seen.push({ user: ctx.user, headers: Object.keys(ctx.req.headers).filter((h) => h.startsWith("impersonate-")) });
    ctx.res.end("served");
  });
  return { seen, call: (headers: [string, string][]) => get(`${server.url}/api/v1/namespaces/default/configmaps`, headers) };
}

/** A GET that sends each header line as given, repeated names as separate lines (as Go clients do; fetch would join them). */
function get(url: string, headers: [string, string][]): Promise<{ status: number; json(): Promise<unknown> }> {
  const byName: Record<string, string[]> = {};
  for (const [name, value] of headers) (byName[name] ??= []).push(value);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: byName }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, json: () => Promise.resolve(JSON.parse(text) as unknown) });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("impersonation", () => {
  it("acts as the requested user and groups once each is allowed, adding system:authenticated, and drops the headers", async () => {
    const { authorizer, checks } = recordingAuthorizer(() => true);
    const { seen, call } = await serve(authorizer);
    const response = await call([
      ["Impersonate-User", "jane"],
      ["Impersonate-Group", "devs"],
      ["Impersonate-Group", "ops, night shift"],
      ["Impersonate-Uid", "1234"],
      ["Impersonate-Extra-acme.com%2fproject", "apollo"],
      ["Impersonate-Extra-Scopes", "view"],
    ]);
    expect(response.status).toBe(200);
    expect(seen).toEqual([
      {
        user: {
          name: "jane",
          uid: "1234",
          groups: ["devs", "ops, night shift", "system:authenticated"],
          extra: { "acme.com/project": ["apollo"], scopes: ["view"] },
        },
        headers: [],
      },
    ]);
    expect(checks.map((c) => c.user)).toEqual(["bob", "bob", "bob", "bob", "bob", "bob"]);
    expect(checks.map((c) => c.attributes)).toEqual([
      { verb: "impersonate", group: "", resource: "users", name: "jane" },
      { verb: "impersonate", group: "", resource: "groups", name: "devs" },
      { verb: "impersonate", group: "", resource: "groups", name: "ops, night shift" },
      { verb: "impersonate", group: "authentication.k8s.io", resource: "userextras", subresource: "acme.com/project", name: "apollo" },
      { verb: "impersonate", group: "authentication.k8s.io", resource: "userextras", subresource: "scopes", name: "view" },
      { verb: "impersonate", group: "authentication.k8s.io", resource: "uids", name: "1234" },
    ]);
  });

  it("keeps extra keys named like Object.prototype's members as ordinary keys", async () => {
    const { authorizer } = recordingAuthorizer(() => true);
    const { seen, call } = await serve(authorizer);
    const response = await call([
      ["Impersonate-User", "jane"],
      ["Impersonate-Extra-__proto__", "a"],
      ["Impersonate-Extra-constructor", "b"],
      ["Impersonate-Extra-constructor", "c"],
    ]);
    expect(response.status).toBe(200);
    const extra = seen[0]?.user?.extra ?? {};
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.keys(extra)).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(extra)).toBe('{"__proto__":["a"],"constructor":["b","c"]}');
  });

  it("checks a service account in its namespace and gives it the service account groups when none are asked for", async () => {
    const { authorizer, checks } = recordingAuthorizer(() => true);
    const { seen, call } = await serve(authorizer);
    expect((await call([["Impersonate-User", "system:serviceaccount:team-a:builder"]])).status).toBe(200);
    expect(checks[0]!.attributes).toEqual({
      verb: "impersonate",
      group: "",
      resource: "serviceaccounts",
      namespace: "team-a",
      name: "builder",
    });
    expect(seen[0]!.user).toEqual({
      name: "system:serviceaccount:team-a:builder",
      groups: ["system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"],
    });
  });

  it("keeps system:unauthenticated for system:anonymous instead of adding system:authenticated", async () => {
    const { authorizer } = recordingAuthorizer(() => true);
    const { seen, call } = await serve(authorizer);
    await call([["Impersonate-User", "system:anonymous"]]);
    await call([
      ["Impersonate-User", "jane"],
      ["Impersonate-Group", "system:unauthenticated"],
    ]);
    expect(seen.map((s) => s.user)).toEqual([
      { name: "system:anonymous", groups: ["system:unauthenticated"] },
      { name: "jane", groups: ["system:unauthenticated"] },
    ]);
  });

  it("answers upstream's 403 for the first thing the requester may not impersonate, with the authorizer's reason", async () => {
    const { authorizer } = recordingAuthorizer((a) => a.resource === "users");
    const { seen, call } = await serve(authorizer);
    const denied = await call([
      ["Impersonate-User", "jane"],
      ["Impersonate-Group", "admins"],
    ]);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      message: 'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope',
      details: { name: "admins", kind: "groups" },
    });
    const withReason = recordingAuthorizer(() => false, "no RBAC policy matched");
    const second = await serve(withReason.authorizer);
    const body = (await (await second.call([["Impersonate-User", "jane"]])).json()) as { message: string };
    expect(body.message).toBe(
      'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: no RBAC policy matched',
    );
    const sa = await (await second.call([["Impersonate-User", "system:serviceaccount:team-a:builder"]])).json();
    expect((sa as { message: string }).message).toBe(
      'serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team-a": no RBAC policy matched',
    );
    expect(seen).toEqual([]);
  });

  it("refuses every impersonation when no authorizer is configured", async () => {
    const { call } = await serve(undefined);
    expect((await call([["Impersonate-User", "jane"]])).status).toBe(403);
  });

  it("refuses groups, extras or a uid without a user, as upstream does (500)", async () => {
    const { authorizer, checks } = recordingAuthorizer(() => true);
    const { call } = await serve(authorizer);
    const response = await call([["Impersonate-Group", "devs"]]);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { message: string }).message).toBe(
      "Internal error occurred: requested [{Group devs}] without impersonating a user",
    );
    expect(checks).toEqual([]);
  });

  it("passes requests without impersonation headers on untouched", async () => {
    const { authorizer, checks } = recordingAuthorizer(() => false);
    const { seen, call } = await serve(authorizer);
    expect((await call([])).status).toBe(200);
    expect(seen[0]!.user).toEqual(BOB);
    expect(checks).toEqual([]);
  });
});
