import "reflect-metadata";
import { webcrypto } from "node:crypto";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const HOUR = 3_600_000;

export interface ServingCertificate {
  cert: string;
  key: string;
}

/** A throwaway CA for tests: its PEM, its `caBundle` (base64 of the PEM) and serving certificates it signs. */
export interface TestCertificateAuthority {
  readonly pem: string;
  readonly caBundle: string;
  /** A serving certificate for DNS names and IP addresses (`127.0.0.1`, `::1`). */
  issue(names: readonly string[], options?: { expired?: boolean }): Promise<ServingCertificate>;
}

let serial = 1;

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

export async function createTestCertificateAuthority(commonName = "test-ca"): Promise<TestCertificateAuthority> {
  const caKeys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16).padStart(2, "0"),
    name: `CN=${commonName}`,
    notBefore: new Date(now - HOUR),
    notAfter: new Date(now + 24 * HOUR),
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const pem = ca.toString("pem");
  return {
    pem,
    caBundle: Buffer.from(pem).toString("base64"),
    async issue(names, options = {}) {
      const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
      const sans = names.map((name) =>
        /^[\d.]+$|:/.test(name) ? { type: "ip" as const, value: name } : { type: "dns" as const, value: name },
      );
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: (serial++).toString(16).padStart(2, "0"),
        subject: `CN=${names[0] ?? "server"}`,
        issuer: ca.subject,
        notBefore: new Date(options.expired ? now - 48 * HOUR : now - HOUR),
        notAfter: new Date(options.expired ? now - 24 * HOUR : now + 24 * HOUR),
        signingKey: caKeys.privateKey,
        publicKey: keys.publicKey,
        signingAlgorithm: ALGORITHM,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(sans),
        ],
      });
      return { cert: cert.toString("pem"), key: await pkcs8Pem(keys.privateKey) };
    },
  };
}

export interface TestHttpsServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 (a free port) serving `certificate`. */
export async function startTestHttpsServer(
  certificate: ServingCertificate,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestHttpsServer> {
  const server = createServer({ cert: certificate.cert, key: certificate.key }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Reads a JSON request body. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}
