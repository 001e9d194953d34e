import { webcrypto } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSecurePlane, type SecurePlane } from "../src/authn/test-support.js";
import { createCertificateAuthority } from "../src/certs/authority.js";
import { x509 } from "../src/certs/x509.js";
import { kubeconfigFor } from "../src/server/kubeconfig.js";
import { Kubectl } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import type { TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

// The CSR flow with kubectl 1.32 against a control plane serving HTTPS with RBAC: a user's request
// for the kubernetes.io/kube-apiserver-client signer, `kubectl certificate approve` (refused until
// the approver may approve for that signer), the certificate the signer issues from the client CA,
// and kubectl authenticating with it.

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

let secure: SecurePlane;
let dir: string;
let admin: Kubectl;

function kubectlFor(kubeconfig: string): Kubectl {
  const server: TestServer = { url: secure.plane.url, kubeconfigPath: kubeconfig, dir, close: () => Promise.resolve() };
  return new Kubectl(findKubectl132(), server);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kubekit-csr-e2e-"));
  // The signer's CA is the client CA the server trusts (startSecurePlane's one CA).
  const ca = await createCertificateAuthority("kubernetes");
  secure = await startSecurePlane(
    { authorization: { modes: ["RBAC"] }, controllers: { leaderElection: false, clusterSigningKubeAPIServerClient: ca } },
    ca,
  );
  const adminConfig = join(dir, "admin");
  await secure.plane.writeKubeconfig(adminConfig);
  admin = kubectlFor(adminConfig);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await secure?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A key and a PEM CSR for `subject` (`openssl req -new` as the Kubernetes docs do it). */
async function keyAndRequest(subject: string): Promise<{ key: string; request: string }> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: ALGORITHM });
  const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey), "PRIVATE KEY");
  return { key, request: request.toString("pem") };
}

function csrManifest(name: string, request: string, signerName = "kubernetes.io/kube-apiserver-client"): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: ${name}
spec:
  request: ${Buffer.from(request).toString("base64")}
  signerName: ${signerName}
  expirationSeconds: 86400
  usages:
  - client auth
`,
  );
  return file;
}

async function issuedCertificate(name: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const certificate = await admin.ok(["get", "csr", name, "-o", "jsonpath={.status.certificate}"]);
    if (certificate !== "") return Buffer.from(certificate, "base64").toString();
    if (Date.now() > deadline) throw new Error(`no certificate issued for ${name}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("kubectl 1.32 and CertificateSigningRequests", { timeout: 60_000 }, () => {
  it("approves a client certificate request, and the issued certificate authenticates its subject", async () => {
    const jane = await keyAndRequest("CN=jane, O=developers");
    await admin.ok(["create", "-f", csrManifest("jane", jane.request)]);
    const created = await admin.json<{ spec: { username: string; groups: string[] } }>(["get", "csr", "jane"]);
    // The requester is who sent the request, whatever the body said.
    expect(created.spec.username).toBe("kubernetes-admin");
    expect(created.spec.groups).toContain("system:masters");
    expect(await admin.ok(["get", "csr", "jane"])).toMatch(
      /jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Pending/,
    );

    expect(await admin.ok(["certificate", "approve", "jane"])).toContain("certificatesigningrequest.certificates.k8s.io/jane approved");
    const cert = await issuedCertificate("jane");
    expect(await admin.ok(["get", "csr", "jane"])).toMatch(/Approved,Issued/);
    const issued = new x509.X509Certificate(cert);
    expect(issued.subject).toBe("CN=jane, O=developers");
    expect(issued.issuer).toBe(new x509.X509Certificate(secure.ca.cert).subject);

    const janeConfig = join(dir, "jane");
    writeFileSync(
      janeConfig,
      kubeconfigFor(secure.plane.url, "jane", "default", {
        certificateAuthority: secure.ca.cert,
        clientCertificate: cert,
        clientKey: jane.key,
      }),
    );
    const whoami = await kubectlFor(janeConfig).json<{ status: { userInfo: { username: string; groups: string[] } } }>(["auth", "whoami"]);
    expect(whoami.status.userInfo.username).toBe("jane");
    expect(whoami.status.userInfo.groups).toContain("developers");
  });

  it("refuses approval to a user without approve on the signer, until granted", async () => {
    const approver = await keyAndRequest("CN=approver");
    await admin.ok(["create", "-f", csrManifest("approver", approver.request)]);
    await admin.ok(["certificate", "approve", "approver"]);
    const approverConfig = join(dir, "approver");
    writeFileSync(
      approverConfig,
      kubeconfigFor(secure.plane.url, "approver", "default", {
        certificateAuthority: secure.ca.cert,
        clientCertificate: await issuedCertificate("approver"),
        clientKey: approver.key,
      }),
    );
    const asApprover = kubectlFor(approverConfig);
    await admin.ok([
      "create",
      "clusterrole",
      "csr-approval",
      "--verb=get,list,update",
      "--resource=certificatesigningrequests,certificatesigningrequests/approval",
    ]);
    await admin.ok(["create", "clusterrolebinding", "csr-approval", "--clusterrole=csr-approval", "--user=approver"]);

    const bob = await keyAndRequest("CN=bob");
    await admin.ok(["create", "-f", csrManifest("bob", bob.request)]);
    const refused = await asApprover.run(["certificate", "approve", "bob"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"');

    // signers are no served resource (kubectl create clusterrole checks discovery): a manifest, as upstream's docs do it.
    const role = join(dir, "client-signer-approver.yaml");
    writeFileSync(
      role,
      `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: client-signer-approver
rules:
- apiGroups: [certificates.k8s.io]
  resources: [signers]
  resourceNames: [kubernetes.io/kube-apiserver-client]
  verbs: [approve]
`,
    );
    await admin.ok(["apply", "-f", role]);
    await admin.ok(["create", "clusterrolebinding", "client-signer-approver", "--clusterrole=client-signer-approver", "--user=approver"]);
    expect(await asApprover.ok(["certificate", "approve", "bob"])).toContain("approved");
    expect(new x509.X509Certificate(await issuedCertificate("bob")).subject).toBe("CN=bob");
  });

  it("refuses the legacy-unknown signer and a system:masters client certificate", async () => {
    const legacy = await keyAndRequest("CN=legacy");
    const refusedLegacy = await admin.run(["create", "-f", csrManifest("legacy", legacy.request, "kubernetes.io/legacy-unknown")]);
    expect(refusedLegacy.code).not.toBe(0);
    expect(refusedLegacy.stderr).toContain(
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    );

    const masters = await keyAndRequest("CN=mallory, O=system:masters");
    const refusedMasters = await admin.run(["create", "-f", csrManifest("mallory", masters.request)]);
    expect(refusedMasters.code).not.toBe(0);
    expect(refusedMasters.stderr).toContain("use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");
  });
});
