import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../validation/field-errors.js";
import { fieldForbidden, fieldInvalid, fieldNotSupported, isQualifiedName } from "../validation/index.js";
import { asRecord, defineResource } from "./define.js";
import { ageColumn } from "./printer-columns.js";
import { int32Schema, kindSchema, microTimeSchema, stringSchema } from "./schema-parts.js";
import { canonicalMicroTime, normalizeField, type DecodeTarget } from "../validation/wire-values.js";

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

const TARGET: DecodeTarget = { kind: "Lease", version: "v1" };
const VALID_STRATEGIES = ["OldestEmulationVersion"];

function normalizeTimes(object: Lease): void {
  const spec = asRecord(object.spec);
  normalizeField(spec, "acquireTime", (v) => canonicalMicroTime(v, TARGET));
  normalizeField(spec, "renewTime", (v) => canonicalMicroTime(v, TARGET));
}

/**
 * `strategy` and `preferredHolder` belong to the alpha CoordinatedLeaderElection feature, off by
 * default: upstream drops them unless the stored object already uses them.
 */
function dropDisabledFields(object: Lease, old: Lease | undefined): void {
  const spec = asRecord(object.spec) as LeaseSpec | undefined;
  if (!spec) return;
  if (old?.spec?.strategy === undefined) delete spec.strategy;
  if (old?.spec?.preferredHolder === undefined) delete spec.preferredHolder;
}

/** `ValidateLeaseSpec`. */
export function validateLease(object: Lease): FieldError[] {
  const errors: FieldError[] = [];
  const spec = object.spec ?? {};
  if (typeof spec.leaseDurationSeconds === "number" && spec.leaseDurationSeconds <= 0) {
    errors.push(fieldInvalid("spec.leaseDurationSeconds", spec.leaseDurationSeconds, "must be greater than 0"));
  }
  if (typeof spec.leaseTransitions === "number" && spec.leaseTransitions < 0) {
    errors.push(fieldInvalid("spec.leaseTransitions", spec.leaseTransitions, "must be greater than or equal to 0"));
  }
  if (spec.strategy !== undefined) {
    if (!spec.strategy.includes("/")) {
      if (!VALID_STRATEGIES.includes(spec.strategy)) errors.push(fieldNotSupported("spec.strategy", spec.strategy, VALID_STRATEGIES));
    } else {
      for (const msg of isQualifiedName(spec.strategy)) errors.push(fieldInvalid("spec.strategy", spec.strategy, msg));
    }
  }
  if (spec.preferredHolder !== undefined && spec.preferredHolder !== "" && (spec.strategy === undefined || spec.strategy === "")) {
    errors.push(fieldForbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
  }
  return errors;
}

const schema = kindSchema({
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  description: "Lease defines a lease concept.",
  properties: {
    spec: {
      type: "object",
      default: {},
      description:
        "spec contains the specification of the Lease. See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
      properties: {
        acquireTime: microTimeSchema("acquireTime is a time when the current lease was acquired."),
        holderIdentity: stringSchema(
          "holderIdentity contains the identity of the holder of a current lease. With Coordinated Leader Election it must equal the elected LeaseCandidate.metadata.name.",
        ),
        leaseDurationSeconds: int32Schema(
          "leaseDurationSeconds is how long candidates for a lease need to wait to force acquire it, measured against the time of the last observed renewTime.",
        ),
        leaseTransitions: int32Schema("leaseTransitions is the number of transitions of a lease between holders."),
        preferredHolder: stringSchema(
          "PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up. This field can only be set if Strategy is also set.",
        ),
        renewTime: microTimeSchema("renewTime is a time when the current holder of a lease has last updated the lease."),
        strategy: stringSchema(
          "Strategy indicates the strategy for picking the leader for coordinated leader election. If unset there is no active coordination for this lease. (Alpha) Requires the CoordinatedLeaderElection feature gate.",
        ),
      },
    },
  },
});

/** coordination.k8s.io/v1 Lease. */
export const leasesResource = defineResource<Lease>({
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
  singular: "lease",
  scope: "Namespaced",
  schema,
  printerColumns: [
    {
      name: "Holder",
      type: "string",
      description: "holderIdentity contains the identity of the holder of a current lease.",
      cell: (object) => object.spec?.holderIdentity ?? "",
    },
    ageColumn(),
  ],
  strategy: {
    allowCreateOnUpdate: true,
    prepareForCreate(object) {
      dropDisabledFields(object, undefined);
      normalizeTimes(object);
    },
    prepareForUpdate(object, old) {
      dropDisabledFields(object, old);
      normalizeTimes(object);
    },
    validate: validateLease,
    validateUpdate: validateLease,
  },
});
