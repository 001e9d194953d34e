import { forbidden } from "../api/errors/index.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../admission/types.js";
import { currentAdmissionRequestContext } from "../admission/request-context.js";
import type { Authorizer } from "../server/access-reviews.js";
import { CERTIFICATES_GROUP, KUBE_APISERVER_CLIENT_SIGNER, type CertificateSigningRequest } from "./types.js";
import { parseRequest, pemOf } from "./validation.js";

const CSR_RESOURCE = { group: CERTIFICATES_GROUP, resource: "certificatesigningrequests" };
const SYSTEM_MASTERS = "system:masters";

function isCsr(attributes: AdmissionAttributes): boolean {
  return attributes.definition.group === CERTIFICATES_GROUP && attributes.definition.plural === "certificatesigningrequests";
}

/**
 * Whether the request's user may `verb` (`approve`, `sign`) on the signer, named exactly or by its
 * domain wildcard (upstream `certificates.IsAuthorizedForSignerName`).
 */
async function authorizedForSigner(authorizer: Authorizer, verb: string, signerName: string): Promise<boolean> {
  const user = currentAdmissionRequestContext()?.user;
  // Writes from inside the process (controllers' own stores) carry no user to check.
  if (user === undefined) return true;
  const subject = {
    name: user.name,
    groups: user.groups,
    ...(user.uid !== undefined ? { uid: user.uid } : {}),
    ...(user.extra !== undefined ? { extra: user.extra } : {}),
  };
  const attributes = { verb, group: CERTIFICATES_GROUP, resource: "signers" };
  if ((await authorizer.authorize(subject, { ...attributes, name: signerName })).allowed) return true;
  const slash = signerName.indexOf("/");
  return slash > 0 && (await authorizer.authorize(subject, { ...attributes, name: `${signerName.slice(0, slash)}/*` })).allowed;
}

/**
 * kube-apiserver's CSR admission: the requester recorded in `spec` on create (upstream's
 * strategy), CertificateApproval (`approve` on the signer for `/approval`), CertificateSigning
 * (`sign` on the signer to set `status.certificate`) and CertificateSubjectRestriction (no
 * `system:masters` certificate from the client signer).
 */
export function certificateSigningRequestAdmission(authorizer: () => Authorizer): AdmissionPlugin {
  return {
    name: "CertificateSigningRequests",
    admit(attributes) {
      if (!isCsr(attributes) || attributes.operation !== "CREATE" || attributes.subresource !== "") return;
      const user = currentAdmissionRequestContext()?.user;
      if (user === undefined) return;
      const csr = attributes.object as CertificateSigningRequest;
      const spec = { ...csr.spec };
      delete spec.uid;
      delete spec.extra;
      spec.username = user.name;
      if (user.uid !== undefined && user.uid !== "") spec.uid = user.uid;
      spec.groups = [...user.groups];
      if (user.extra !== undefined && Object.keys(user.extra).length > 0) spec.extra = user.extra;
      csr.spec = spec;
    },
    async validate(attributes) {
      if (!isCsr(attributes)) return;
      const csr = attributes.object as CertificateSigningRequest | undefined;
      if (csr === undefined) return;
      const signerName = csr.spec?.signerName ?? "";
      if (attributes.operation === "CREATE" && signerName === KUBE_APISERVER_CLIENT_SIGNER) {
        const request = parseRequest(pemOf(csr.spec?.request) ?? "");
        if (typeof request !== "string" && organizationsOf(request.subject).includes(SYSTEM_MASTERS)) {
          throw forbidden(CSR_RESOURCE, attributes.name, `use of ${signerName} signer with ${SYSTEM_MASTERS} group is not allowed`);
        }
      }
      if (attributes.operation !== "UPDATE") return;
      if (attributes.subresource === "approval" && !(await authorizedForSigner(authorizer(), "approve", signerName))) {
        throw forbidden(
          CSR_RESOURCE,
          attributes.name,
          `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`,
        );
      }
      const old = attributes.oldObject as CertificateSigningRequest | undefined;
      if (
        attributes.subresource === "status" &&
        (csr.status?.certificate ?? "") !== (old?.status?.certificate ?? "") &&
        !(await authorizedForSigner(authorizer(), "sign", signerName))
      ) {
        throw forbidden(CSR_RESOURCE, attributes.name, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}

/** The O= values of a distinguished name (RFC 4514 text as @peculiar/x509 prints it). */
export function organizationsOf(subject: string): string[] {
  const values: string[] = [];
  for (const match of subject.matchAll(/(?:^|,)\s*O=((?:\\.|[^,])*)/g)) values.push(match[1]!.replace(/\\(.)/g, "$1"));
  return values;
}
