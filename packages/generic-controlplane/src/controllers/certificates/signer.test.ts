import { webcrypto } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/types.js";
import { createCertificateAuthority } from "../../certs/authority.js";
import { x509 } from "../../certs/x509.js";
import type { CertificateSigningRequest } from "../../certificates/types.js";
import { eventually, startControllers, type ControllerHarness } from "../test-support.js";
import { CERTIFICATE_SIGNING_REQUESTS } from "./refs.js";
import { csrSigningController } from "./signer.js";

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

let h: ControllerHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function approvedRequest(name: string, usages: string[], signerName = "kubernetes.io/kube-apiserver-client"): Promise<void> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${name}, O=team`, keys, signingAlgorithm: ALGORITHM });
  const created = await h!.client.create<CertificateSigningRequest & KubeObject>(CERTIFICATE_SIGNING_REQUESTS, undefined, {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: { request: Buffer.from(request.toString("pem")).toString("base64"), signerName, usages, expirationSeconds: 3600 },
  });
  created.status = { conditions: [{ type: "Approved", status: "True", reason: "Test" }] };
  await h!.client.update(CERTIFICATE_SIGNING_REQUESTS, undefined, created, "approval");
}

const csr = (name: string) => h!.client.get<CertificateSigningRequest & KubeObject>(CERTIFICATE_SIGNING_REQUESTS, undefined, name);

describe("csrsigning", () => {
  it("signs approved client requests with the CA, and fails those whose usages are not a client certificate's", async () => {
    const ca = await createCertificateAuthority("client-ca");
    h = await startControllers([csrSigningController({ kubeAPIServerClient: ca })]);
    await approvedRequest("alice", ["digital signature", "client auth"]);
    await approvedRequest("server", ["client auth", "server auth"]);
    await approvedRequest("other-signer", ["client auth"], "example.com/other");

    const issued = await eventually("alice's certificate", async () => (await csr("alice")).status?.certificate || undefined);
    const cert = new x509.X509Certificate(Buffer.from(issued, "base64").toString());
    expect(cert.subject).toBe("CN=alice, O=team");
    expect(await cert.verify({ publicKey: new x509.X509Certificate(ca.cert).publicKey, signatureOnly: true })).toBe(true);
    expect(cert.notAfter.getTime() - cert.notBefore.getTime()).toBe(3600_000 + 5 * 60_000);
    expect(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual(["1.3.6.1.5.5.7.3.2"]);

    const failed = await eventually("the server-auth request to fail", async () =>
      (await csr("server")).status?.conditions?.find((c) => c.type === "Failed"),
    );
    expect(failed).toMatchObject({ status: "True", reason: "SignerValidationFailure", message: "invalid usages: [server auth]" });
    expect((await csr("server")).status?.certificate).toBeUndefined();
    // Another signer's request is left to its own controller.
    expect((await csr("other-signer")).status?.certificate).toBeUndefined();
  });
});
