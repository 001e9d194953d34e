import { webcrypto } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority } from "../src/certs/authority.js";
import { x509 } from "../src/certs/x509.js";
import { KubeHttp, mergePatch, WatchQuiet } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Port of "[sig-auth] Certificates API [Privileged:ClusterAdmin] should support CSR API operations
// [Conformance]" (test/e2e/auth/certificates.go), keeping upstream's steps and assertions:
// discovery of the group, version and subresources, create/get/list/watch/patch/update, the
// /approval and /status subresources, delete and deletecollection.

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface Csr {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid: string; resourceVersion: string; annotations?: Record<string, string> };
  spec: { expirationSeconds?: number };
  status?: { conditions?: Condition[]; certificate?: string };
}

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

let server: TestServer;
let http: KubeHttp;

beforeAll(async () => {
  server = await startInProcess({ controllers: true });
  http = new KubeHttp(server.url);
}, 30_000);

afterAll(async () => {
  await server?.close();
});

/** cert.MakeCSR: a PEM CERTIFICATE REQUEST for CN e2e.example.com with the DNS name. */
async function makeCsr(): Promise<string> {
  const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: "CN=e2e.example.com",
    keys,
    signingAlgorithm: algorithm,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: "e2e.example.com" }])],
  });
  return request.toString("pem");
}

function ok<T>(answer: { status: number; text: string; body: T }, status = 200): T {
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

describe("[sig-auth] Certificates API [Privileged:ClusterAdmin]", () => {
  it("should support CSR API operations", async () => {
    // Setup
    const csrVersion = "v1";
    const csrData = Buffer.from(await makeCsr()).toString("base64");
    const certificateData = Buffer.from((await createCertificateAuthority("e2e.example.com")).cert).toString("base64");
    const signerName = `example.com/e2e-${Math.random().toString(36).slice(2, 7)}`;
    const csrTemplate = {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { generateName: "e2e-example-csr-" },
      spec: { request: csrData, signerName, expirationSeconds: 3600, usages: ["digital signature", "key encipherment", "server auth"] },
    };

    // Discovery
    // getting /apis
    const groups = ok(await http.get<{ groups: { name: string; versions: { version: string }[] }[] }>("/apis"));
    expect(
      groups.groups.some((g) => g.name === "certificates.k8s.io" && g.versions.some((v) => v.version === csrVersion)),
      "expected certificates API group/version",
    ).toBe(true);
    // getting /apis/certificates.k8s.io
    const group = ok(await http.get<{ versions: { version: string }[] }>("/apis/certificates.k8s.io"));
    expect(
      group.versions.some((v) => v.version === csrVersion),
      "expected certificates API version",
    ).toBe(true);
    // getting /apis/certificates.k8s.io/v1
    const resources = ok(await http.get<{ resources: { name: string }[] }>(`/apis/certificates.k8s.io/${csrVersion}`));
    const names = resources.resources.map((r) => r.name);
    expect(names).toContain("certificatesigningrequests");
    expect(names).toContain("certificatesigningrequests/approval");
    expect(names).toContain("certificatesigningrequests/status");

    // Main resource create/read/update/watch operations
    // creating
    ok(await http.post(CSRS, csrTemplate), 201);
    ok(await http.post(CSRS, csrTemplate), 201);
    const createdCSR = ok(await http.post<Csr>(CSRS, csrTemplate), 201);

    // getting
    const gottenCSR = ok(await http.get<Csr>(`${CSRS}/${createdCSR.metadata.name}`));
    expect(gottenCSR.metadata.uid).toBe(createdCSR.metadata.uid);
    expect(gottenCSR.spec.expirationSeconds).toBe(3600);

    // listing
    const bySigner = `fieldSelector=${encodeURIComponent(`spec.signerName=${signerName}`)}`;
    const csrs = ok(await http.get<{ metadata: { resourceVersion: string }; items: Csr[] }>(`${CSRS}?${bySigner}`));
    expect(csrs.items, "filtered list should have 3 items").toHaveLength(3);

    // watching
    const csrWatch = await http.watch(
      `${CSRS}?resourceVersion=${csrs.metadata.resourceVersion}&fieldSelector=${encodeURIComponent(`metadata.name=${createdCSR.metadata.name}`)}`,
    );
    try {
      // patching
      const patchedCSR = ok(
        await http.patch<Csr>(`${CSRS}/${createdCSR.metadata.name}`, { metadata: { annotations: { patched: "true" } } }, mergePatch),
      );
      expect(patchedCSR.metadata.annotations, "patched object should have the applied annotation").toHaveProperty("patched", "true");

      // updating
      const csrToUpdate = structuredClone(patchedCSR);
      csrToUpdate.metadata.annotations!["updated"] = "true";
      const updatedCSR = ok(await http.put<Csr>(`${CSRS}/${createdCSR.metadata.name}`, csrToUpdate));
      expect(updatedCSR.metadata.annotations, "updated object should have the applied annotation").toHaveProperty("updated", "true");

      // waiting for watch events with expected annotations
      for (let sawAnnotations = false; !sawAnnotations;) {
        const event = await csrWatch.next(30_000).catch((error: unknown) => {
          throw error instanceof WatchQuiet ? new Error("timed out waiting for watch event") : error;
        });
        expect(event.type).toBe("MODIFIED");
        const watched = event.object as unknown as Csr;
        expect(watched.kind).toBe("CertificateSigningRequest");
        if (watched.metadata.annotations?.["patched"] === "true") sawAnnotations = true;
      }
    } finally {
      csrWatch.close();
    }

    // /approval subresource operations
    // getting /approval
    const gottenApproval = ok(await http.get<Csr>(`${CSRS}/${createdCSR.metadata.name}/approval`));
    expect([gottenApproval.apiVersion, gottenApproval.kind]).toEqual(["certificates.k8s.io/v1", "CertificateSigningRequest"]);
    expect(gottenApproval.metadata.uid).toBe(createdCSR.metadata.uid);

    // patching /approval
    const patchedApproval = ok(
      await http.patch<Csr>(
        `${CSRS}/${createdCSR.metadata.name}/approval`,
        {
          metadata: { annotations: { patchedapproval: "true" } },
          status: { conditions: [{ type: "ApprovalPatch", status: "True", reason: "e2e" }] },
        },
        mergePatch,
      ),
    );
    expect(patchedApproval.status?.conditions, "patched object should have the applied condition").toHaveLength(1);
    expect(patchedApproval.status?.conditions?.[0]?.type, "patched object should have the applied condition").toBe("ApprovalPatch");
    expect(patchedApproval.metadata.annotations, "patched object should have the applied annotation").toHaveProperty(
      "patchedapproval",
      "true",
    );

    // updating /approval
    const approvalToUpdate = structuredClone(patchedApproval);
    approvalToUpdate.status!.conditions!.push({ type: "Approved", status: "True", reason: "E2E", message: "Set from an e2e test" });
    const updatedApproval = ok(await http.put<Csr>(`${CSRS}/${createdCSR.metadata.name}/approval`, approvalToUpdate));
    expect(updatedApproval.status?.conditions, "updated object should have the applied condition").toHaveLength(2);
    expect(updatedApproval.status?.conditions?.[1]?.type, "updated object should have the approved condition").toBe("Approved");

    // /status subresource operations
    // getting /status
    const gottenStatus = ok(await http.get<Csr>(`${CSRS}/${createdCSR.metadata.name}/status`));
    expect([gottenStatus.apiVersion, gottenStatus.kind]).toEqual(["certificates.k8s.io/v1", "CertificateSigningRequest"]);
    expect(gottenStatus.metadata.uid).toBe(createdCSR.metadata.uid);

    // patching /status
    const patchedStatus = ok(
      await http.patch<Csr>(
        `${CSRS}/${createdCSR.metadata.name}/status`,
        { metadata: { annotations: { patchedstatus: "true" } }, status: { certificate: certificateData } },
        mergePatch,
      ),
    );
    expect(patchedStatus.status?.certificate, "patched object should have the applied certificate").toBe(certificateData);
    expect(patchedStatus.metadata.annotations, "patched object should have the applied annotation").toHaveProperty("patchedstatus", "true");

    // updating /status
    const statusToUpdate = structuredClone(patchedStatus);
    statusToUpdate.status!.conditions!.push({ type: "StatusUpdate", status: "True", reason: "E2E", message: "Set from an e2e test" });
    const updatedStatus = ok(await http.put<Csr>(`${CSRS}/${createdCSR.metadata.name}/status`, statusToUpdate));
    expect(updatedStatus.status?.conditions, "updated object should have the applied condition").toHaveLength(
      statusToUpdate.status!.conditions!.length,
    );
    expect(updatedStatus.status?.conditions?.at(-1)?.type, "updated object should have the approved condition").toBe("StatusUpdate");

    // main resource delete operations
    // deleting
    ok(await http.delete(`${CSRS}/${createdCSR.metadata.name}`));
    expect((await http.get(`${CSRS}/${createdCSR.metadata.name}`)).status, "expected 404").toBe(404);
    expect(ok(await http.get<{ items: Csr[] }>(`${CSRS}?${bySigner}`)).items, "filtered list should have 2 items").toHaveLength(2);

    // deleting a collection
    ok(await http.delete(`${CSRS}?${bySigner}`));
    expect(ok(await http.get<{ items: Csr[] }>(`${CSRS}?${bySigner}`)).items, "filtered list should have 0 items").toHaveLength(0);
  }, 60_000);
});
