/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- tests read arbitrary JSON responses */
import { createLocalJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSecurePlane, type SecurePlane } from "../src/authn/test-support.js";

// Ports of the API-level Conformance tests of test/e2e/auth: service_accounts.go ("should create a
// serviceAccountToken and ensure a successful TokenReview", "ServiceAccountIssuerDiscovery should
// support OIDC discovery of service account issuer", whose in-pod client is replaced by verifying the
// token against the served JWKS here) and selfsubjectreviews.go ("should support SelfSubjectReview
// API operations", v1 only). They run over HTTPS as the admin, as the e2e framework's client does.

let t: SecurePlane;

beforeAll(async () => {
  t = await startSecurePlane();
}, 30_000);

afterAll(async () => {
  await t?.close();
});

let counter = 0;
async function namespace(base: string): Promise<string> {
  const name = `${base}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;
  expect((await t.asAdmin("POST", "/api/v1/namespaces", { metadata: { name } })).status).toBe(201);
  return name;
}

describe("[sig-auth] ServiceAccounts", () => {
  it("should create a serviceAccountToken and ensure a successful TokenReview [Conformance]", async () => {
    const ns = await namespace("svcaccounts");
    const saName = "e2e-sa-" + Math.random().toString(36).slice(2, 7);
    const sa = await t.asAdmin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: saName } });
    expect(sa.status, sa.text).toBe(201);

    // By("Creating a ServiceAccount token")
    const tokenRequest = await t.asAdmin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${saName}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    });
    expect(tokenRequest.status, tokenRequest.text).toBe(201);

    // By("Creating a TokenReview")
    const review = await t.asAdmin("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token: tokenRequest.json.status.token },
    });
    expect(review.status, review.text).toBe(201);
    expect(review.json.status.authenticated).toBe(true);
    expect(review.json.status.error ?? "").toBe("");
    expect(review.json.status.user.username).toBe(`system:serviceaccount:${ns}:${saName}`);
    expect(review.json.status.user.uid).toBe(sa.json.metadata.uid);
  });
});

describe("[sig-auth] ServiceAccounts ServiceAccountIssuerDiscovery", () => {
  it("should support OIDC discovery of service account issuer [Conformance]", async () => {
    const ns = await namespace("svcaccounts");
    expect((await t.asAdmin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "default" } })).status).toBe(201);
    const token = (
      await t.asAdmin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/default/token`, {
        spec: { audiences: ["oidc-discovery-test"], expirationSeconds: 600 },
      })
    ).json.status.token as string;
    const claims = decodeJwt(token);

    // The discovery document and the keys it points at (upstream's agnhost test-service-account-issuer-discovery).
    const configuration = await t.asAdmin("GET", "/.well-known/openid-configuration");
    expect(configuration.status).toBe(200);
    expect(configuration.json.issuer).toBe(claims.iss);
    expect(new URL(configuration.json.jwks_uri as string).pathname).toBe("/openid/v1/jwks");
    expect(configuration.json.response_types_supported).toEqual(["id_token"]);
    expect(configuration.json.subject_types_supported).toEqual(["public"]);
    const jwks = await t.asAdmin("GET", "/openid/v1/jwks");
    expect(jwks.status).toBe(200);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.json), {
      issuer: configuration.json.issuer,
      audience: "oidc-discovery-test",
      algorithms: configuration.json.id_token_signing_alg_values_supported,
    });
    expect(payload.sub).toBe(`system:serviceaccount:${ns}:default`);
  });
});

describe("[sig-auth] SelfSubjectReview", () => {
  it("should support SelfSubjectReview API operations [Conformance]", async () => {
    // By("getting /apis"), ("getting /apis/authentication.k8s.io"), ("getting /apis/authentication.k8s.io/v1")
    const groups = await t.asAdmin("GET", "/apis");
    expect((groups.json.groups as { name: string }[]).some((g) => g.name === "authentication.k8s.io")).toBe(true);
    const group = await t.asAdmin("GET", "/apis/authentication.k8s.io");
    expect((group.json.versions as { version: string }[]).map((v) => v.version)).toContain("v1");
    const resources = await t.asAdmin("GET", "/apis/authentication.k8s.io/v1");
    const ssr = (resources.json.resources as { name: string; verbs: string[]; namespaced: boolean }[]).find(
      (r) => r.name === "selfsubjectreviews",
    );
    expect(ssr).toMatchObject({ verbs: ["create"], namespaced: false });

    // By("creating SSR") with the impersonation config of the e2e test.
    const review = await t.asAdmin(
      "POST",
      "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
      {
        "Impersonate-User": "jane-doe",
        "Impersonate-Uid": "uniq-id",
        "Impersonate-Group": ["system:authenticated", "developers"],
        "Impersonate-Extra-known": "value",
      },
    );
    expect(review.status, review.text).toBe(201);
    expect(review.json.status.userInfo).toEqual({
      username: "jane-doe",
      uid: "uniq-id",
      groups: ["system:authenticated", "developers"],
      extra: { known: ["value"] },
    });
  });
});
