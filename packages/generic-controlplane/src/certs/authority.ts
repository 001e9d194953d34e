import { webcrypto } from "node:crypto";
import { isIP } from "node:net";
import type { x509 as X509 } from "./x509.js";

/** @peculiar/x509 is loaded on first use: importing the package should not pay for it. */
async function x509Library(): Promise<typeof X509> {
  return (await import("./x509.js")).x509;
}

/** A certificate and its private key, both PEM. */
export interface CertificateAndKey {
  cert: string;
  key: string;
}

/** ECDSA P-256 with SHA-256: what kubeadm and client-go's cert utilities generate today. */
const KEY_ALGORITHM: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

const DAY_MS = 24 * 60 * 60 * 1000;
/** kubeadm's lifetimes: CAs for ten years, leaf certificates for one. */
const CA_VALIDITY_MS = 10 * 365 * DAY_MS;
const LEAF_VALIDITY_MS = 365 * DAY_MS;
/** Leaf certificates start a little in the past so clocks that lag slightly still accept them. */
const BACKDATE_MS = 5 * 60 * 1000;

const EXT_KEY_USAGE_SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const EXT_KEY_USAGE_CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const x509 = await x509Library();
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

async function importPrivateKey(pem: string): Promise<webcrypto.CryptoKey> {
  const x509 = await x509Library();
  return webcrypto.subtle.importKey("pkcs8", x509.PemConverter.decodeFirst(pem), KEY_ALGORITHM, false, ["sign"]);
}

function serialNumber(): string {
  // A positive 127-bit serial, as Go's crypto/x509 users pick (the high bit clear keeps DER positive).
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = bytes[0]! & 0x7f;
  return Buffer.from(bytes).toString("hex");
}

/** Escapes a value for an RFC 4514 distinguished name. */
function dnValue(value: string): string {
  return value.replace(/[\\,+"<>;=]/g, (c) => `\\${c}`).replace(/^[ #]|[ ]$/g, (c) => `\\${c}`);
}

function subjectName(commonName: string, organizations: readonly string[] = []): string {
  return [...organizations.map((o) => `O=${dnValue(o)}`), `CN=${dnValue(commonName)}`].join(", ");
}

/** A self-signed CA that can sign serving and client certificates. */
export async function createCertificateAuthority(commonName: string, now = new Date()): Promise<CertificateAndKey> {
  const x509 = await x509Library();
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: subjectName(commonName),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_VALIDITY_MS),
    keys,
    signingAlgorithm: KEY_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString("pem"), key: await privateKeyPem(keys.privateKey) };
}

interface LeafRequest {
  commonName: string;
  organizations?: readonly string[];
  /** DNS names and IP addresses (v4 or v6) for the subjectAltName of a serving certificate. */
  hosts?: readonly string[];
  usage: "server" | "client";
}

async function issue(ca: CertificateAndKey, request: LeafRequest, now: Date): Promise<CertificateAndKey> {
  const x509 = await x509Library();
  const caCert = new x509.X509Certificate(ca.cert);
  const keys = await newKeys();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([request.usage === "server" ? EXT_KEY_USAGE_SERVER_AUTH : EXT_KEY_USAGE_CLIENT_AUTH], false),
    await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
  ];
  const hosts = request.hosts ?? [];
  if (hosts.length > 0) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        hosts.map((host) => (isIP(host) === 0 ? { type: "dns" as const, value: host } : { type: "ip" as const, value: host })),
        false,
      ),
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: subjectName(request.commonName, request.organizations),
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(Math.min(now.getTime() + LEAF_VALIDITY_MS, caCert.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: await importPrivateKey(ca.key),
    signingAlgorithm: KEY_ALGORITHM,
    extensions,
  });
  return { cert: cert.toString("pem"), key: await privateKeyPem(keys.privateKey) };
}

/** A serving certificate for `hosts` (DNS names and IP addresses), signed by `ca`. */
export function issueServingCertificate(
  ca: CertificateAndKey,
  commonName: string,
  hosts: readonly string[],
  now = new Date(),
): Promise<CertificateAndKey> {
  return issue(ca, { commonName, hosts, usage: "server" }, now);
}

/** A client certificate: the X.509 authenticator reads the user from CN and the groups from O. */
export function issueClientCertificate(
  ca: CertificateAndKey,
  user: { name: string; groups?: readonly string[] },
  now = new Date(),
): Promise<CertificateAndKey> {
  return issue(ca, { commonName: user.name, organizations: user.groups ?? [], usage: "client" }, now);
}

/** The DNS names and IP addresses a serving certificate is valid for. */
export async function certificateHosts(certPem: string): Promise<string[]> {
  const x509 = await x509Library();
  const cert = new x509.X509Certificate(certPem);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return san === null ? [] : san.names.items.map((name) => name.value);
}

/** Whether a certificate is within its validity period at `now` (and will be for `marginMs`). */
export async function certificateValid(certPem: string, now = new Date(), marginMs = 0): Promise<boolean> {
  const x509 = await x509Library();
  const cert = new x509.X509Certificate(certPem);
  return cert.notBefore.getTime() <= now.getTime() && now.getTime() + marginMs < cert.notAfter.getTime();
}

/** What a signer puts in a certificate it issues for a CertificateSigningRequest. */
export interface CertificateRequestSigning {
  /** X.509 key usage bits (`KeyUsageFlags`) and extended key usage OIDs. */
  keyUsages: number;
  extendedKeyUsages: readonly string[];
  /** How long the certificate lasts; the CA's own expiry caps it. */
  validityMs: number;
}

/**
 * A certificate for the public key and subject of a PEM certificate request, signed by `ca`
 * (upstream `authority.CertificateAuthority.Sign`): backdated 5 minutes, never outliving the CA.
 */
export async function signCertificateRequest(
  ca: CertificateAndKey,
  requestPem: string,
  signing: CertificateRequestSigning,
  now = new Date(),
): Promise<string> {
  const x509 = await x509Library();
  const caCert = new x509.X509Certificate(ca.cert);
  const request = new x509.Pkcs10CertificateRequest(requestPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: request.subject,
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(Math.min(now.getTime() + signing.validityMs, caCert.notAfter.getTime())),
    publicKey: request.publicKey,
    signingKey: await importPrivateKey(ca.key),
    signingAlgorithm: KEY_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      // Go leaves out a key usage extension without bits; an empty one makes TLS stacks refuse the certificate.
      ...(signing.keyUsages !== 0 ? [new x509.KeyUsagesExtension(signing.keyUsages, true)] : []),
      ...(signing.extendedKeyUsages.length > 0 ? [new x509.ExtendedKeyUsageExtension([...signing.extendedKeyUsages], false)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
    ],
  });
  return cert.toString("pem");
}
