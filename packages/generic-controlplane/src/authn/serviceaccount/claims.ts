/** What upstream's `pkg/serviceaccount` puts in and reads from service account JWTs. */

/** The issuer of secret-based (legacy) tokens, which carry no expiry and no audience. */
export const LEGACY_ISSUER = "kubernetes/serviceaccount";

/** The `iss` kubeadm configures and the in-cluster clients expect when nothing else is set. */
export const DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local";

export const SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:";
export const ALL_SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";
/** The user extra a bound token's `jti` is reported under, so audit logs can tell tokens apart. */
export const CREDENTIAL_ID_EXTRA = "authentication.kubernetes.io/credential-id";

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;
}

/** Splits a service account username; undefined for any other user name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(":");
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

/** `system:serviceaccounts` and `system:serviceaccounts:<namespace>`. */
export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

interface Ref {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim of a bound token (upstream `privateClaims.Kubernetes`). */
export interface BoundClaims {
  namespace: string;
  serviceaccount: Ref;
  secret?: Ref;
  pod?: Ref;
  node?: Ref;
  /** Unix seconds after which clients should refresh a token given extended expiry. */
  warnafter?: number;
}

/** The claims of a legacy token, flat and prefixed as upstream's `legacyPrivateClaims`. */
export const LEGACY_CLAIMS = {
  namespace: "kubernetes.io/serviceaccount/namespace",
  secretName: "kubernetes.io/serviceaccount/secret.name",
  serviceAccountName: "kubernetes.io/serviceaccount/service-account.name",
  serviceAccountUid: "kubernetes.io/serviceaccount/service-account.uid",
} as const;
