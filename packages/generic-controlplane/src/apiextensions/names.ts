import {
  findCondition,
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
  type CustomResourceDefinitionNames,
} from "./types.js";

/**
 * upstream's NamingConditionController (`pkg/controller/status/naming_controller.go`): which of a
 * CRD's requested names it may use, given the names the other CRDs of its group already hold.
 */

export interface NamesResult {
  acceptedNames: CustomResourceDefinitionNames;
  namesAccepted: CustomResourceDefinitionCondition;
  established: CustomResourceDefinitionCondition;
}

/** The resource and kind names accepted for the other CRDs of `group`. */
function acceptedNamesOfGroup(
  group: string,
  self: string,
  all: readonly CustomResourceDefinition[],
): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const crd of all) {
    if (crd.spec?.group !== group || crd.metadata?.name === self) continue;
    const names = crd.status?.acceptedNames ?? {};
    for (const name of [names.plural, names.singular, ...(names.shortNames ?? [])]) if (name) resources.add(name);
    for (const kind of [names.kind, names.listKind]) if (kind) kinds.add(kind);
  }
  return { resources, kinds };
}

/** upstream `equalToAcceptedOrFresh`. */
function conflictOf(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if (requested === accepted || requested === undefined || requested === "" || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

/** upstream `calculateNamesAndConditions`. */
export function calculateNames(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[]): NamesResult {
  const { resources, kinds } = acceptedNamesOfGroup(crd.spec?.group ?? "", crd.metadata?.name ?? "", all);
  const requested = crd.spec?.names ?? {};
  const accepted = crd.status?.acceptedNames ?? {};
  const next: CustomResourceDefinitionNames = { ...accepted };
  let failure: { reason: string; message: string } | undefined;
  const fail = (reason: string, message: string) => {
    failure = { reason, message };
  };
  const take = <K extends keyof CustomResourceDefinitionNames>(key: K) => {
    if (requested[key] === undefined) delete next[key];
    else next[key] = requested[key];
  };

  const plural = conflictOf(requested.plural, accepted.plural, resources);
  if (plural !== undefined) fail("PluralConflict", plural);
  else take("plural");
  const singular = conflictOf(requested.singular, accepted.singular, resources);
  if (singular !== undefined) fail("SingularConflict", singular);
  else take("singular");
  if (JSON.stringify(requested.shortNames ?? []) !== JSON.stringify(accepted.shortNames ?? [])) {
    const held = new Set(accepted.shortNames ?? []);
    const problems = (requested.shortNames ?? []).filter((s) => !held.has(s)).flatMap((s) => conflictOf(s, "", resources) ?? []);
    if (problems.length > 0) fail("ShortNamesConflict", problems.length === 1 ? problems[0]! : `[${problems.join(", ")}]`);
    else take("shortNames");
  }
  const kind = conflictOf(requested.kind, accepted.kind, kinds);
  if (kind !== undefined) fail("KindConflict", kind);
  else take("kind");
  const listKind = conflictOf(requested.listKind, accepted.listKind, kinds);
  if (listKind !== undefined) fail("ListKindConflict", listKind);
  else take("listKind");
  take("categories");

  const namesAccepted: CustomResourceDefinitionCondition =
    failure === undefined
      ? { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" }
      : { type: "NamesAccepted", status: "False", ...failure };

  // Established only turns True once the names are in and the handler serves them (the establishing step).
  let established: CustomResourceDefinitionCondition = findCondition(crd, "Established") ?? {
    type: "Established",
    status: "False",
    reason: "NotAccepted",
    message: "not all names are accepted",
  };
  if (established.status !== "True" && namesAccepted.status === "True") {
    established = { type: "Established", status: "False", reason: "Installing", message: "the initial names have been accepted" };
  }
  return { acceptedNames: next, namesAccepted, established };
}
