import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  certificateHosts,
  certificateValid,
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  type CertificateAndKey,
} from "./authority.js";

/** The names every generated serving certificate covers, as kubeadm's apiserver certificate does for loopback. */
export const DEFAULT_SERVING_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "::1"];

/** kubeadm's admin identity: in `system:masters`, which upstream's RBAC lets do anything. */
export const ADMIN_USER = { name: "kubernetes-admin", groups: ["system:masters"] } as const;

/** Leaf certificates are reissued when they would expire within this margin. */
const RENEW_MARGIN_MS = 30 * 24 * 60 * 60 * 1000;

/** A generated CA with the serving and admin client certificates it signed, kept in a directory. */
export interface ServingPki {
  ca: CertificateAndKey;
  serving: CertificateAndKey;
  admin: CertificateAndKey;
}

async function readPair(dir: string, name: string): Promise<CertificateAndKey | undefined> {
  try {
    return { cert: await readFile(join(dir, `${name}.crt`), "utf8"), key: await readFile(join(dir, `${name}.key`), "utf8") };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function writePair(dir: string, name: string, pair: CertificateAndKey): Promise<void> {
  await writeFile(join(dir, `${name}.key`), pair.key, { mode: 0o600 });
  await writeFile(join(dir, `${name}.crt`), pair.cert, { mode: 0o644 });
}

/**
 * The control plane's PKI in `dir` (`ca.crt`/`ca.key`, `apiserver.crt`/`.key`, `admin.crt`/`.key`),
 * created on first use and reused after, like kubeadm's `/etc/kubernetes/pki`. The serving
 * certificate is reissued from the same CA when it does not cover `hosts` (the defaults plus any
 * extra names) or is about to expire, so clients that trust the CA keep working.
 */
export async function loadOrCreateServingPki(dir: string, extraHosts: readonly string[] = []): Promise<ServingPki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const hosts = [...new Set([...DEFAULT_SERVING_HOSTS, ...extraHosts])];
  let ca = await readPair(dir, "ca");
  let fresh = false;
  if (ca === undefined) {
    ca = await createCertificateAuthority("kubernetes");
    await writePair(dir, "ca", ca);
    fresh = true;
  }
  let serving = fresh ? undefined : await readPair(dir, "apiserver");
  if (
    serving === undefined ||
    !(await certificateValid(serving.cert, new Date(), RENEW_MARGIN_MS)) ||
    !covers(await certificateHosts(serving.cert), hosts)
  ) {
    serving = await issueServingCertificate(ca, "kube-apiserver", hosts);
    await writePair(dir, "apiserver", serving);
  }
  let admin = fresh ? undefined : await readPair(dir, "admin");
  if (admin === undefined || !(await certificateValid(admin.cert, new Date(), RENEW_MARGIN_MS))) {
    admin = await issueClientCertificate(ca, ADMIN_USER);
    await writePair(dir, "admin", admin);
  }
  return { ca, serving, admin };
}

function covers(have: readonly string[], want: readonly string[]): boolean {
  const normal = new Set(have.map((h) => h.toLowerCase()));
  return want.every((host) => normal.has(host.toLowerCase()));
}
