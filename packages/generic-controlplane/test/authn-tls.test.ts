import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuthenticationV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeconfigFor } from "../src/server/kubeconfig.js";
import { startSecurePlane, type SecurePlane } from "../src/authn/test-support.js";
import { Kubectl } from "./harness/kubectl.js";
import { killAllChildren, run } from "./harness/run.js";
import type { TestServer } from "./harness/server.js";
import { findKubectl132, findPython } from "./harness/tools.js";

// kubectl 1.32, @kubernetes/client-node and the python client against a control plane serving HTTPS
// with client-certificate, token-file and service account authentication, each using the admin
// kubeconfig the control plane writes (the CA plus a kubernetes-admin / system:masters certificate).

let secure: SecurePlane;
let server: TestServer;
let kubectl: Kubectl;
/** A kubeconfig with the CA but no credentials, for requests that bring their own token. */
let caOnlyKubeconfig: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "kubekit-authn-e2e-"));
  secure = await startSecurePlane({
    authentication: { tokenFile: "viewer-token,viewer,uid-viewer,viewers\n" },
    // Until RBAC decides: only system:masters may impersonate.
    authorizer: {
      authorize: (user, attributes) => ({ allowed: attributes.verb !== "impersonate" || user.groups.includes("system:masters") }),
    },
    controllers: { controllers: ["serviceaccount"], leaderElection: false },
  });
  const kubeconfigPath = join(dir, "kubeconfig");
  await secure.plane.writeKubeconfig(kubeconfigPath);
  caOnlyKubeconfig = join(dir, "ca-only");
  writeFileSync(caOnlyKubeconfig, kubeconfigFor(secure.plane.url, "ca-only", "default", { certificateAuthority: secure.ca.cert }));
  server = {
    url: secure.plane.url,
    kubeconfigPath,
    dir,
    async close() {
      try {
        await secure.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  kubectl = new Kubectl(findKubectl132(), server);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
});

/** kubectl with the CA-only kubeconfig and a bearer token. */
async function withToken(token: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return run(
    kubectl.binary,
    ["--kubeconfig", caOnlyKubeconfig, "--cache-dir", join(server.dir, "token-cache"), "--token", token, ...args],
    { env: { HOME: server.dir }, timeoutMs: 30_000 },
  );
}

async function waitForDefaultServiceAccount(): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const result = await kubectl.run(["get", "serviceaccount", "default", "-o", "name"]);
    if (result.code === 0) return;
    if (Date.now() > deadline) throw new Error(`the serviceaccount controller did not create default/default in 15 s: ${result.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("kubectl 1.32 over TLS", () => {
  it("works with the admin kubeconfig, and auth whoami reports kubernetes-admin in system:masters", async () => {
    expect(server.url).toMatch(/^https:/);
    expect(await kubectl.ok(["get", "namespace", "default", "-o", "name"])).toBe("namespace/default\n");
    const whoami = await kubectl.json<{ status: { userInfo: unknown } }>(["auth", "whoami"]);
    expect(whoami.status.userInfo).toEqual({ username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] });
  });

  it("create token default: the token authenticates as system:serviceaccount:default:default and passes a TokenReview", async () => {
    await waitForDefaultServiceAccount();
    const token = (await kubectl.ok(["create", "token", "default"])).trim();
    expect(token.split(".")).toHaveLength(3);
    const sa = await kubectl.json<{ metadata: { uid: string } }>(["get", "serviceaccount", "default"]);
    const asSa = await withToken(token, ["auth", "whoami", "-o", "json"]);
    expect(asSa.code, asSa.stderr).toBe(0);
    const user = (JSON.parse(asSa.stdout) as { status: { userInfo: Record<string, unknown> } }).status.userInfo;
    expect(user).toMatchObject({
      username: "system:serviceaccount:default:default",
      uid: sa.metadata.uid,
      groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
    });
    const listed = await withToken(token, ["get", "configmaps", "-o", "name"]);
    expect(listed.code, listed.stderr).toBe(0);

    const reviewed = JSON.parse(
      await kubectl.ok(["create", "-o", "json", "-f", "-"], {
        input: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } }),
      }),
    ) as { status: { authenticated: boolean; user: { username: string; uid: string } } };
    expect(reviewed.status.authenticated).toBe(true);
    expect(reviewed.status.user).toMatchObject({ username: "system:serviceaccount:default:default", uid: sa.metadata.uid });

    const bad = await withToken(`${token.slice(0, -4)}AAAA`, ["get", "configmaps"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("You must be logged in to the server (Unauthorized)");
  });

  it("create token with an audience and a duration", async () => {
    await waitForDefaultServiceAccount();
    const token = (await kubectl.ok(["create", "token", "default", "--audience", "vault", "--duration", "20m"])).trim();
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { aud: string[]; exp: number; iat: number };
    expect(claims.aud).toEqual(["vault"]);
    expect(claims.exp - claims.iat).toBe(1200);
    // Not for this API server's audience: refused.
    expect((await withToken(token, ["get", "configmaps"])).code).not.toBe(0);
  });

  it("whoami --as=jane --as-group=devs reports jane/devs for the admin and 403 for a user who may not impersonate", async () => {
    const asJane = await kubectl.json<{ status: { userInfo: unknown } }>(["auth", "whoami", "--as=jane", "--as-group=devs"]);
    expect(asJane.status.userInfo).toEqual({ username: "jane", groups: ["devs", "system:authenticated"] });
    const viewer = await withToken("viewer-token", ["auth", "whoami", "--as=jane", "--as-group=devs"]);
    expect(viewer.code).not.toBe(0);
    // kubectl words any refusal of whoami its own way; the server's message shows on other commands.
    expect(viewer.stderr).toContain("the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it");
    const listing = await withToken("viewer-token", ["get", "configmaps", "--as=jane", "--as-group=devs"]);
    expect(listing.code).not.toBe(0);
    expect(listing.stderr).toContain(
      'Error from server (Forbidden): users "jane" is forbidden: User "viewer" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });
});

describe("other clients over TLS with the admin kubeconfig", () => {
  it("@kubernetes/client-node lists namespaces and sees itself as kubernetes-admin", async () => {
    const config = new KubeConfig();
    config.loadFromFile(server.kubeconfigPath);
    const namespaces = await config.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((ns) => ns.metadata?.name)).toContain("default");
    const review = await config
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(review.status?.userInfo).toEqual({ username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] });
  });

  it("the python client", async () => {
    const result = await run(findPython(), [join(import.meta.dirname, "python", "test_tls_admin.py")], {
      env: { E2E_KUBECONFIG: server.kubeconfigPath, PYTHONDONTWRITEBYTECODE: "1" },
      timeoutMs: 60_000,
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  }, 90_000);
});
