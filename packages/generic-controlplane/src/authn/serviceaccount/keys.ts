import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { exportJWK, type JWK } from "jose";

/** A key that verifies service account tokens, with the `kid` and `alg` its tokens carry. */
export interface VerificationKey {
  kid: string;
  alg: string;
  key: KeyObject;
}

/** The key new tokens are signed with, and every key tokens are still accepted from (the signing key's public half first). */
export interface ServiceAccountKeys {
  signing: { kid: string; alg: string; key: KeyObject };
  verification: VerificationKey[];
}

/** upstream `keyIDFromPublicKey`: base64url(sha256(DER SubjectPublicKeyInfo)), so a key has the same id wherever it is loaded. */
export function keyId(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("base64url");
}

/** The JWS algorithm for a key, as upstream's token generator picks it (RS256 for RSA, ES256/384/512 by curve). */
export function signingAlgorithm(key: KeyObject): string {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return "ES256";
    if (curve === "secp384r1") return "ES384";
    if (curve === "secp521r1") return "ES512";
  }
  throw new Error(
    `service account keys must be RSA or ECDSA (P-256, P-384, P-521), got ${key.asymmetricKeyType ?? "unknown"} ${key.asymmetricKeyDetails?.namedCurve ?? ""}`.trim(),
  );
}

function verificationKey(key: KeyObject): VerificationKey {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return { kid: keyId(publicKey), alg: signingAlgorithm(publicKey), key: publicKey };
}

/** Splits a PEM bundle into its blocks (a `--service-account-key-file` may hold several public keys). */
function pemBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
}

/**
 * Keys from PEM text: `signingKey` is a private key (kube-apiserver's `--service-account-signing-key-file`);
 * `verificationKeys` are public or private keys whose tokens stay valid (`--service-account-key-file`,
 * e.g. the keys signed with before a rotation). The signing key always verifies its own tokens.
 */
export function serviceAccountKeysFromPem(signingKey: string, verificationKeys: readonly string[] = []): ServiceAccountKeys {
  const signing = createPrivateKey(signingKey);
  const own = verificationKey(signing);
  const verification = [own];
  for (const pem of verificationKeys.flatMap(pemBlocks)) {
    const key = verificationKey(pem.includes("PRIVATE KEY") ? createPrivateKey(pem) : createPublicKey(pem));
    if (!verification.some((known) => known.kid === key.kid)) verification.push(key);
  }
  return { signing: { kid: own.kid, alg: own.alg, key: signing }, verification };
}

/** A fresh ECDSA P-256 signing key (PKCS#8 PEM), what kubeadm-style setups and upstream's test server use. */
export async function generateServiceAccountSigningKey(): Promise<string> {
  const { privateKey } = await promisify(generateKeyPair)("ec", { namedCurve: "P-256" });
  return privateKey.export({ type: "pkcs8", format: "pem" }) as string;
}

const SIGNING_KEY_FILE = "sa.key";
const PUBLIC_KEY_FILE = "sa.pub";
const RETIRED_PREFIX = "sa-retired-";

/**
 * The service account keys kept in `dir`, as PEM: `sa.key` signs new tokens (`sa.pub` is its public
 * half) and every `sa-retired-*.pub` still verifies tokens signed before a rotation. Created on
 * first use, like kubeadm's `sa.key`/`sa.pub`.
 */
export async function loadOrCreateServiceAccountKeyFiles(dir: string): Promise<{ signingKey: string; verificationKeys: string[] }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let signingKey: string;
  try {
    signingKey = await readFile(join(dir, SIGNING_KEY_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    signingKey = await generateServiceAccountSigningKey();
    await writeSigningKey(dir, signingKey);
  }
  const verificationKeys: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (name.startsWith(RETIRED_PREFIX) && name.endsWith(".pub")) verificationKeys.push(await readFile(join(dir, name), "utf8"));
  }
  return { signingKey, verificationKeys };
}

/** `loadOrCreateServiceAccountKeyFiles`, parsed. */
export async function loadOrCreateServiceAccountKeys(dir: string): Promise<ServiceAccountKeys> {
  const files = await loadOrCreateServiceAccountKeyFiles(dir);
  return serviceAccountKeysFromPem(files.signingKey, files.verificationKeys);
}

async function writeSigningKey(dir: string, signingPem: string): Promise<void> {
  await writeFile(join(dir, SIGNING_KEY_FILE), signingPem, { mode: 0o600 });
  const publicPem = createPublicKey(signingPem).export({ type: "spki", format: "pem" }) as string;
  await writeFile(join(dir, PUBLIC_KEY_FILE), publicPem, { mode: 0o644 });
}

/**
 * Rotates the signing key in `dir`: a new `sa.key` signs from now on, and the old key's public half
 * is kept as `sa-retired-<kid>.pub`, so tokens already handed out keep verifying until they expire
 * (or until that file is removed). Returns the key files now in force.
 */
export async function rotateServiceAccountKeys(dir: string): Promise<{ signingKey: string; verificationKeys: string[] }> {
  const current = await loadOrCreateServiceAccountKeys(dir);
  const retiredPem = createPublicKey(current.signing.key).export({ type: "spki", format: "pem" }) as string;
  await writeFile(join(dir, `${RETIRED_PREFIX}${current.signing.kid}.pub.tmp`), retiredPem, { mode: 0o644 });
  await rename(join(dir, `${RETIRED_PREFIX}${current.signing.kid}.pub.tmp`), join(dir, `${RETIRED_PREFIX}${current.signing.kid}.pub`));
  await writeSigningKey(dir, await generateServiceAccountSigningKey());
  return loadOrCreateServiceAccountKeyFiles(dir);
}

/** The JSON Web Key Set of the verification keys, as `/openid/v1/jwks` serves it. */
export async function publicJwks(keys: ServiceAccountKeys): Promise<{ keys: JWK[] }> {
  const out: JWK[] = [];
  for (const key of keys.verification) out.push({ use: "sig", kty: "", ...(await exportJWK(key.key)), kid: key.kid, alg: key.alg });
  return { keys: out };
}
