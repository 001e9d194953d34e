/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- tests read arbitrary JSON responses */
import { mkdtemp, readdir, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { loadOrCreateServiceAccountKeys, rotateServiceAccountKeys } from "./serviceaccount/keys.js";
import { issueBoundToken, issueLegacyToken } from "./serviceaccount/tokens.js";
import { startSecurePlane, type SecurePlane } from "./test-support.js";

const planes: SecurePlane[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(planes.splice(0).map((p) => p.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function start(...args: Parameters<typeof startSecurePlane>): Promise<SecurePlane> {
  const plane = await startSecurePlane(...args);
  planes.push(plane);
  return plane;
}

const WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
const REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
const ISSUER = "https://kubernetes.default.svc.cluster.local";

async function serviceAccount(t: SecurePlane, name: string, namespace = "default") {
  const created = await t.asAdmin("POST", `/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  expect(created.status, created.text).toBe(201);
  return created.json as { metadata: { uid: string; name: string; namespace: string } };
}

async function requestToken(t: SecurePlane, name: string, spec: Record<string, unknown> = {}, namespace = "default") {
  return t.asAdmin("POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec,
  });
}

describe("service account tokens", () => {
  it("issues a bound token for a service account that authenticates as it, with its uid, groups and credential id", async () => {
    const t = await start();
    const sa = await serviceAccount(t, "builder");
    const before = Date.now();
    const reply = await requestToken(t, "builder");
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json).toMatchObject({
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      spec: { audiences: [ISSUER], expirationSeconds: 3600 },
    });
    const expires = Date.parse(reply.json.status.expirationTimestamp as string);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000);
    const token = reply.json.status.token as string;
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: "system:serviceaccount:default:builder",
      aud: [ISSUER],
      "kubernetes.io": { namespace: "default", serviceaccount: { name: "builder", uid: sa.metadata.uid } },
    });
    const whoami = await t.call("POST", WHOAMI, { token }, {});
    expect(whoami.json.status.userInfo).toEqual({
      username: "system:serviceaccount:default:builder",
      uid: sa.metadata.uid,
      groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
      extra: { "authentication.kubernetes.io/credential-id": [`JTI=${String(claims.jti)}`] },
    });
  });

  it("validates TokenRequests as upstream: expiry bounds, a missing service account, binding kinds and uids", async () => {
    const t = await start();
    await serviceAccount(t, "builder");
    const short = await requestToken(t, "builder", { expirationSeconds: 300 });
    expect(short.status).toBe(422);
    expect(short.json.message).toBe(
      'TokenRequest.authentication.k8s.io "builder" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
    );
    expect(short.json.details.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.expirationSeconds",
        message: "Invalid value: 300: may not specify a duration less than 10 minutes",
      },
    ]);
    const missing = await requestToken(t, "nobody");
    expect([missing.status, missing.json.message]).toEqual([404, 'serviceaccounts "nobody" not found']);
    const toPod = await requestToken(t, "builder", { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "web" } });
    expect([toPod.status, toPod.json.reason]).toEqual([400, "BadRequest"]);
    const toMissingSecret = await requestToken(t, "builder", { boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "gone" } });
    expect([toMissingSecret.status, toMissingSecret.json.message]).toEqual([404, 'secrets "gone" not found']);
    await t.asAdmin("POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "anchor" } });
    const wrongUid = await requestToken(t, "builder", {
      boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "anchor", uid: "not-the-uid" },
    });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json.message).toContain("the UID in the bound object reference (not-the-uid) does not match the UID in record");
    const long = await requestToken(t, "builder", { expirationSeconds: 7200, audiences: ["vault"] });
    expect(long.json.spec).toEqual({ expirationSeconds: 7200, audiences: ["vault"] });
    expect(decodeJwt(long.json.status.token as string).aud).toEqual(["vault"]);
  });

  it("revokes a token when its service account is deleted, or recreated with a new uid, or its bound Secret goes", async () => {
    const t = await start();
    await serviceAccount(t, "builder");
    const token = (await requestToken(t, "builder")).json.status.token as string;
    expect((await t.call("GET", "/api/v1/namespaces/default/configmaps", { token })).status).toBe(200);
    expect((await t.asAdmin("DELETE", "/api/v1/namespaces/default/serviceaccounts/builder")).status).toBe(200);
    expect((await t.call("GET", "/api/v1/namespaces/default/configmaps", { token })).status).toBe(401);
    await serviceAccount(t, "builder");
    expect((await t.call("GET", "/api/v1/namespaces/default/configmaps", { token })).status).toBe(401);

    const secret = (await t.asAdmin("POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "anchor" } })).json as {
      metadata: { uid: string };
    };
    const bound = (
      await requestToken(t, "builder", { boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "anchor", uid: secret.metadata.uid } })
    ).json.status.token as string;
    expect(decodeJwt(bound)["kubernetes.io"]).toMatchObject({ secret: { name: "anchor", uid: secret.metadata.uid } });
    expect((await t.call("GET", "/version", { token: bound })).status).toBe(200);
    await t.asAdmin("DELETE", "/api/v1/namespaces/default/secrets/anchor");
    expect((await t.call("GET", "/version", { token: bound })).status).toBe(401);
  });

  it("answers TokenReviews: the user and audiences of a good token, authenticated false with the reason otherwise", async () => {
    const t = await start({ authentication: { tokenFile: "static-token,alice,uid-alice,devs\n" } });
    const sa = await serviceAccount(t, "builder");
    const token = (await requestToken(t, "builder", { audiences: ["vault", "api"] })).json.status.token as string;
    const review = (spec: Record<string, unknown>) =>
      t.asAdmin("POST", REVIEWS, { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec });
    const good = await review({ token, audiences: ["vault"] });
    expect(good.status).toBe(201);
    expect(good.json.status).toMatchObject({
      authenticated: true,
      audiences: ["vault"],
      user: {
        username: "system:serviceaccount:default:builder",
        uid: sa.metadata.uid,
        groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
      },
    });
    const wrongAudience = await review({ token, audiences: ["elsewhere"] });
    expect(wrongAudience.json.status).toEqual({
      authenticated: false,
      user: {},
      error: 'token audiences ["vault" "api"] is invalid for the target audiences ["elsewhere"]',
    });
    // Without audiences the API audiences apply, which this token was not issued for.
    expect((await review({ token })).json.status.authenticated).toBe(false);
    expect((await review({ token: "static-token" })).json.status).toEqual({
      authenticated: true,
      user: { username: "alice", uid: "uid-alice", groups: ["devs", "system:authenticated"] },
    });
    expect((await review({ token: "nonsense" })).json.status).toEqual({ authenticated: false, user: {}, error: "invalid bearer token" });
    const empty = await review({});
    expect([empty.status, empty.json.message]).toEqual([400, "token is required for TokenReview in authentication"]);
    expect((await t.asAdmin("GET", REVIEWS)).status).toBe(405);
  });

  it("rejects expired tokens and tokens signed by a key it does not know", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubekit-sa-"));
    dirs.push(dir);
    const keys = await loadOrCreateServiceAccountKeys(join(dir, "a"));
    const strangers = await loadOrCreateServiceAccountKeys(join(dir, "b"));
    const t = await start({ serviceAccountTokens: { signingKey: keys.signing.key.export({ type: "pkcs8", format: "pem" }) as string } });
    const sa = await serviceAccount(t, "builder");
    const expired = await issueBoundToken(
      { keys, issuer: ISSUER },
      { serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600, now: new Date(Date.now() - 3600_000) },
    );
    expect((await t.call("GET", "/version", { token: expired.token })).status).toBe(401);
    const forged = await issueBoundToken(
      { keys: strangers, issuer: ISSUER },
      { serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600 },
    );
    expect((await t.call("GET", "/version", { token: forged.token })).status).toBe(401);
    const fine = await issueBoundToken({ keys, issuer: ISSUER }, { serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600 });
    expect((await t.call("GET", "/version", { token: fine.token })).status).toBe(200);
  });

  it("keeps accepting tokens of a rotated-out key while its public key is kept, and signs new ones with the new key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubekit-sa-"));
    dirs.push(dir);
    const pem = (keys: Awaited<ReturnType<typeof loadOrCreateServiceAccountKeys>>) => ({
      signingKey: keys.signing.key.export({ type: "pkcs8", format: "pem" }) as string,
      verificationKeys: keys.verification.map((k) => k.key.export({ type: "spki", format: "pem" }) as string),
    });
    const before = await loadOrCreateServiceAccountKeys(dir);
    const first = await start({ serviceAccountTokens: pem(before) });
    await serviceAccount(first, "builder");
    const oldToken = (await requestToken(first, "builder")).json.status.token as string;
    const storage = first.plane.storage;

    await rotateServiceAccountKeys(dir);
    const rotated = await loadOrCreateServiceAccountKeys(dir);
    expect(rotated.signing.kid).not.toBe(before.signing.kid);
    expect(rotated.verification.map((k) => k.kid)).toEqual([rotated.signing.kid, before.signing.kid]);
    const second = await start({ storage, serviceAccountTokens: pem(rotated) });
    const newToken = (await requestToken(second, "builder")).json.status.token as string;
    expect(decodeProtectedHeader(newToken).kid).toBe(rotated.signing.kid);
    expect((await second.call("GET", "/version", { token: oldToken })).status).toBe(200);
    expect((await second.call("GET", "/version", { token: newToken })).status).toBe(200);

    for (const name of await readdir(dir)) if (name.startsWith("sa-retired-")) await unlink(join(dir, name));
    const third = await start({ storage, serviceAccountTokens: pem(await loadOrCreateServiceAccountKeys(dir)) });
    expect((await third.call("GET", "/version", { token: oldToken })).status).toBe(401);
    expect((await third.call("GET", "/version", { token: newToken })).status).toBe(200);
  });

  it("verifies legacy secret-based tokens while the Secret holds them", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubekit-sa-"));
    dirs.push(dir);
    const keys = await loadOrCreateServiceAccountKeys(dir);
    const u = await start({ serviceAccountTokens: { signingKey: keys.signing.key.export({ type: "pkcs8", format: "pem" }) as string } });
    const sa = await serviceAccount(u, "legacy");
    const secretMeta = {
      name: "legacy-token",
      annotations: { "kubernetes.io/service-account.name": "legacy", "kubernetes.io/service-account.uid": sa.metadata.uid },
    };
    const created = await u.asAdmin("POST", "/api/v1/namespaces/default/secrets", {
      metadata: secretMeta,
      type: "kubernetes.io/service-account-token",
    });
    expect(created.status, created.text).toBe(201);
    const token = await issueLegacyToken({ keys, issuer: ISSUER }, sa, created.json);
    // Not yet in the Secret: not valid.
    expect((await u.call("GET", "/version", { token })).status).toBe(401);
    const filled = await u.asAdmin("PUT", "/api/v1/namespaces/default/secrets/legacy-token", {
      ...created.json,
      data: { token: Buffer.from(token).toString("base64") },
    });
    expect(filled.status, filled.text).toBe(200);
    const whoami = await u.call("POST", WHOAMI, { token }, {});
    expect(whoami.json.status.userInfo).toEqual({
      username: "system:serviceaccount:default:legacy",
      uid: sa.metadata.uid,
      groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
    });
    await u.asAdmin("DELETE", "/api/v1/namespaces/default/secrets/legacy-token");
    expect((await u.call("GET", "/version", { token })).status).toBe(401);
  });

  it("serves OpenID discovery whose keys verify the tokens it issues", async () => {
    const t = await start();
    await serviceAccount(t, "builder");
    const config = await t.asAdmin("GET", "/.well-known/openid-configuration");
    expect(config.status).toBe(200);
    expect(config.headers["content-type"]).toBe("application/json");
    expect(config.json).toEqual({
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
    });
    const jwks = await t.asAdmin("GET", "/openid/v1/jwks");
    expect(jwks.headers["content-type"]).toBe("application/jwk-set+json");
    expect(jwks.json.keys).toHaveLength(1);
    expect(jwks.json.keys[0]).toMatchObject({ use: "sig", kty: "EC", alg: "ES256" });
    expect(jwks.json.keys[0].d).toBeUndefined();
    const token = (await requestToken(t, "builder")).json.status.token as string;
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.json), { issuer: config.json.issuer, audience: ISSUER });
    expect(payload.sub).toBe("system:serviceaccount:default:builder");
    // Like upstream, the documents are for service accounts and authenticated clients, not anonymous ones by default.
    expect((await t.call("GET", "/.well-known/openid-configuration")).status).toBe(401);
  });
});
