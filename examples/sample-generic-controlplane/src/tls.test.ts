import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type PeerCertificate } from "node:tls";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "@kubekit/generic-controlplane";
import { configFromKubeconfig, type ClientConfig } from "@kubekit/generic-controlplane/controllers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Kubectl } from "../../../packages/generic-controlplane/test/harness/kubectl.js";
import { killAllChildren } from "../../../packages/generic-controlplane/test/harness/run.js";
import { findKubectl132 } from "../../../packages/generic-controlplane/test/harness/tools.js";
import { startBinary, type RunningBinary } from "./binary.test-support.js";

// The binary serves HTTPS by default: a CA, serving and admin certificates generated into
// --cert-dir and reused on restart, the kubeconfig carrying the CA and the admin certificate, and
// service account tokens signed with a key kept there too.

/** The kubeconfig the binary wrote, as a client reads it. */
function kubeconfigOf(dir: string): Promise<ClientConfig> {
  return configFromKubeconfig(readFileSync(join(dir, "kubeconfig"), "utf8"));
}

let kubectlBinary: string;
const running: RunningBinary[] = [];
const dirs: string[] = [];

beforeAll(() => {
  kubectlBinary = findKubectl132();
});
afterEach(async () => {
  for (const binary of running.splice(0)) await binary.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => killAllChildren());

async function start(dir: string, extra: string[] = []): Promise<RunningBinary> {
  const binary = await startBinary(
    ["--port", "0", "--storage", `sqlite:${join(dir, "state.db")}`, "--kubeconfig", join(dir, "kubeconfig"), "--quiet", ...extra],
    dir,
  );
  running.push(binary);
  return binary;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sample-gcp-tls-"));
  dirs.push(dir);
  return dir;
}

function kubectl(url: string, dir: string): Kubectl {
  return new Kubectl(kubectlBinary, { url, kubeconfigPath: join(dir, "kubeconfig"), dir, close: () => Promise.resolve() });
}

async function caOf(dir: string): Promise<string> {
  return (await kubeconfigOf(dir)).ca ?? "";
}

function get(url: string, ca: string, token?: string): Promise<number> {
  return send(url, ca, { ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}) }).then((reply) => reply.status);
}

function send(
  url: string,
  ca: string,
  options: { method?: string; headers?: Record<string, string>; cert?: string; key?: string; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca,
        agent: false,
        method: options.method ?? "GET",
        headers: options.headers ?? {},
        ...(options.cert ? { cert: options.cert, key: options.key } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

function servingCertificate(url: string, ca: string, servername: string): Promise<PeerCertificate> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, servername }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on("error", reject);
  });
}

describe("sample-generic-controlplane over TLS", () => {
  it("serves HTTPS with a generated CA and writes a kubeconfig with the CA and an admin client certificate that kubectl uses", async () => {
    const dir = tempDir();
    const binary = await start(dir);
    expect(binary.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const config = await kubeconfigOf(dir);
    expect(config.server).toBe(binary.url);
    expect(config.cert).toContain("BEGIN CERTIFICATE");
    const k = kubectl(binary.url, dir);
    const whoami = await k.json<{ status: { userInfo: unknown } }>(["auth", "whoami"]);
    expect(whoami.status.userInfo).toEqual({ username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] });
    expect(await k.ok(["get", "namespace", "kube-system", "-o", "name"])).toBe("namespace/kube-system\n");
    const ca = await caOf(dir);
    expect(await get(`${binary.url}/healthz`, ca)).toBe(200);
    // As kube-apiserver with --anonymous-auth=true and RBAC: anonymous reaches the authorizer, which denies it.
    const anonymous = await send(`${binary.url}/api/v1/namespaces`, ca);
    expect(anonymous.status).toBe(403);
    expect(JSON.parse(anonymous.text)).toMatchObject({
      reason: "Forbidden",
      message: 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    });
    expect(await get(`${binary.url}/version`, ca)).toBe(200);
    // A bad credential is still 401, never anonymous.
    expect((await send(`${binary.url}/api/v1/namespaces`, ca, { headers: { Authorization: "Bearer not-a-token" } })).status).toBe(401);
    const certificate = await servingCertificate(binary.url, ca, "localhost");
    expect(certificate.subjectaltname).toBe("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1");
  });

  it("reuses the CA and the service account signing key on restart, so kubeconfigs and tokens stay valid; --tls-san adds names", async () => {
    const dir = tempDir();
    const first = await start(dir);
    const k1 = kubectl(first.url, dir);
    await k1.ok(["create", "serviceaccount", "builder"]);
    // RBAC is on by default: the service account may read what `view` allows.
    await k1.ok(["create", "rolebinding", "builder-view", "--clusterrole=view", "--serviceaccount=default:builder"]);
    const token = (await k1.ok(["create", "token", "builder"])).trim();
    const ca = await caOf(dir);
    expect(await get(`${first.url}/api/v1/namespaces/default/configmaps`, ca, token)).toBe(200);
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const second = await start(dir, ["--tls-san", "api.example.test"]);
    expect(await caOf(dir)).toBe(ca);
    expect(await get(`${second.url}/api/v1/namespaces/default/configmaps`, ca, token)).toBe(200);
    expect((await servingCertificate(second.url, ca, "api.example.test")).subjectaltname).toContain("DNS:api.example.test");
  });

  it("serves the user's certificate with --tls-cert-file/--tls-private-key-file and accepts client certificates of --client-ca-file", async () => {
    const dir = tempDir();
    const theirs = await createCertificateAuthority("corp-ca");
    const serving = await issueServingCertificate(theirs, "api", ["localhost", "127.0.0.1"]);
    writeFileSync(join(dir, "tls.crt"), serving.cert);
    writeFileSync(join(dir, "tls.key"), serving.key);
    writeFileSync(join(dir, "clients.crt"), theirs.cert);
    const binary = await start(dir, [
      "--tls-cert-file",
      join(dir, "tls.crt"),
      "--tls-private-key-file",
      join(dir, "tls.key"),
      "--client-ca-file",
      join(dir, "clients.crt"),
    ]);
    expect(await get(`${binary.url}/healthz`, theirs.cert)).toBe(200);
    const jane = await issueClientCertificate(theirs, { name: "jane", groups: ["corp"] });
    const whoami = await send(`${binary.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, theirs.cert, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
      cert: jane.cert,
      key: jane.key,
    });
    expect(whoami.status).toBe(201);
    expect((JSON.parse(whoami.text) as { status: { userInfo: unknown } }).status.userInfo).toEqual({
      username: "jane",
      groups: ["corp", "system:authenticated"],
    });
    // The kubeconfig trusts the system's CAs for a certificate of the user's, and still carries the admin certificate.
    const config = await kubeconfigOf(dir);
    expect(config.ca).toBeUndefined();
    expect(config.cert).toContain("BEGIN CERTIFICATE");
  });

  it("authorizes with RBAC by default: a token-file user bound to view lists but cannot create; every request lands in the audit log", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "tokens.csv"), 'viewer-token,jane,uid-jane,"devs"\n');
    writeFileSync(join(dir, "audit-policy.yaml"), "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n");
    const binary = await start(dir, [
      "--token-auth-file",
      join(dir, "tokens.csv"),
      "--audit-policy-file",
      join(dir, "audit-policy.yaml"),
      "--audit-log-path",
      join(dir, "audit.log"),
    ]);
    const admin = kubectl(binary.url, dir);
    await admin.ok(["create", "rolebinding", "jane-view", "--clusterrole=view", "--user=jane", "-n", "default"]);
    const ca = await caOf(dir);
    const asJane = { Authorization: "Bearer viewer-token" };
    expect((await send(`${binary.url}/api/v1/namespaces/default/configmaps`, ca, { headers: asJane })).status).toBe(200);
    const refused = await send(`${binary.url}/api/v1/namespaces/default/configmaps`, ca, {
      method: "POST",
      headers: { ...asJane, "Content-Type": "application/json" },
      body: JSON.stringify({ metadata: { name: "x" } }),
    });
    expect(refused.status).toBe(403);
    expect((JSON.parse(refused.text) as { message: string }).message).toContain(
      'configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    // A viewer may not impersonate (kubectl whoami --as=bob as jane).
    const impersonating = await send(`${binary.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, ca, {
      method: "POST",
      headers: { ...asJane, "Impersonate-User": "bob", "Content-Type": "application/json" },
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
    });
    expect(impersonating.status).toBe(403);
    expect((JSON.parse(impersonating.text) as { message: string }).message).toBe(
      'users "bob" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    // Events are appended as responses complete; wait for the two this test made.
    const auditLog = () =>
      readFileSync(join(dir, "audit.log"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { stage: string; verb: string; user: { username: string }; responseStatus?: { code: number } });
    const logged = (user: string, code: number) => () =>
      auditLog().some(
        (e) => e.stage === "ResponseComplete" && e.verb === "create" && e.user.username === user && e.responseStatus?.code === code,
      );
    await expect.poll(logged("jane", 403), { timeout: 5000 }).toBe(true);
    await expect.poll(logged("kubernetes-admin", 201), { timeout: 5000 }).toBe(true);
  });

  it("serves plain HTTP without authentication only with --insecure-http", async () => {
    const dir = tempDir();
    const binary = await start(dir, ["--insecure-http"]);
    expect(binary.url).toMatch(/^http:\/\//);
    expect((await fetch(`${binary.url}/api/v1/namespaces`)).status).toBe(200);
  });
});
