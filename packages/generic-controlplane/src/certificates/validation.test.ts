import { webcrypto } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCertificateAuthority } from "../certs/authority.js";
import { x509 } from "../certs/x509.js";
import { certificateSigningRequestsResource, prepareApprovalUpdate } from "./resource.js";
import type { CertificateSigningRequest } from "./types.js";
import { validateCertificateSigningRequest, validateCertificateSigningRequestUpdate } from "./validation.js";

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

async function requestData(): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: "CN=someone", keys, signingAlgorithm: ALGORITHM });
  return Buffer.from(request.toString("pem")).toString("base64");
}

async function csr(spec: Partial<NonNullable<CertificateSigningRequest["spec"]>> = {}): Promise<CertificateSigningRequest> {
  return {
    metadata: { name: "x" },
    spec: { request: await requestData(), signerName: "example.com/signer", usages: ["client auth"], ...spec },
  };
}

const fields = (errors: { field: string; detail?: string }[]) => errors.map((e) => e.field);

describe("CertificateSigningRequest validation", () => {
  it("accepts a well-formed request", async () => {
    expect(validateCertificateSigningRequest(await csr())).toEqual([]);
  });

  it("names each field and rule a request breaks", async () => {
    const bad = await csr({
      request: Buffer.from("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").toString("base64"),
      signerName: "no-domain",
      usages: ["client auth", "flying", "client auth"],
      expirationSeconds: 599,
    });
    const errors = validateCertificateSigningRequest(bad);
    expect(fields(errors)).toEqual(["spec.request", "spec.signerName", "spec.expirationSeconds", "spec.usages[1]", "spec.usages[2]"]);
    expect(errors[0]!.detail).toBe("PEM block type must be CERTIFICATE REQUEST");
  });

  it("refuses kubernetes.io/legacy-unknown and a missing signer or usages", async () => {
    expect(validateCertificateSigningRequest(await csr({ signerName: "kubernetes.io/legacy-unknown" }))[0]?.detail).toBe(
      "the legacy signerName is not allowed via this API version",
    );
    expect(fields(validateCertificateSigningRequest(await csr({ signerName: "", usages: [] })))).toEqual([
      "spec.signerName",
      "spec.usages",
    ]);
  });

  it("keeps Approved and Denied exclusive, and an issued certificate unchanged", async () => {
    const both = await csr();
    both.status = {
      conditions: [
        { type: "Approved", status: "True" },
        { type: "Denied", status: "True" },
      ],
    };
    expect(validateCertificateSigningRequest(both).map((e) => e.detail)).toContain("Approved and Denied conditions are mutually exclusive");
    const certificate = async () => Buffer.from((await createCertificateAuthority("issued")).cert).toString("base64");
    const issued = await csr();
    issued.status = { certificate: await certificate() };
    expect(validateCertificateSigningRequestUpdate(issued, issued)).toEqual([]);
    const reissued = structuredClone(issued);
    reissued.status = { certificate: await certificate() };
    expect(validateCertificateSigningRequestUpdate(reissued, issued).map((e) => `${e.field}: ${e.detail}`)).toEqual([
      "status.certificate: updates may not modify existing certificate content",
    ]);
  });
});

describe("CertificateSigningRequest updates", () => {
  it("keep approval out of /status and the main resource, and let /approval write conditions only", async () => {
    const old = await csr();
    old.status = {
      conditions: [
        { type: "Approved", status: "True", lastUpdateTime: "2026-01-01T00:00:00Z", lastTransitionTime: "2026-01-01T00:00:00Z" },
      ],
    };
    const viaStatus = structuredClone(old);
    viaStatus.spec!.signerName = "example.com/other";
    viaStatus.status = {
      conditions: [
        { type: "Denied", status: "True" },
        { type: "Progress", status: "True" },
      ],
    };
    certificateSigningRequestsResource.strategy!.prepareForUpdate!(viaStatus, old);
    expect(viaStatus.spec?.signerName).toBe("example.com/signer");
    expect(viaStatus.status?.conditions?.map((c) => c.type)).toEqual(["Approved", "Progress"]);

    const viaApproval = structuredClone(old);
    viaApproval.spec!.usages = ["server auth"];
    viaApproval.status = { conditions: [{ type: "Denied", status: "True" }], certificate: "Zm9v" };
    prepareApprovalUpdate(viaApproval, old);
    expect(viaApproval.spec?.usages).toEqual(["client auth"]);
    expect(viaApproval.status?.conditions?.map((c) => c.type)).toEqual(["Denied"]);
    expect(viaApproval.status?.certificate).toBeUndefined();
    expect(viaApproval.status?.conditions?.[0]?.lastUpdateTime).toMatch(/Z$/);
  });
});
