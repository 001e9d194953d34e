import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { parseAllDocuments } from "yaml";
import { NetworkRegistryError } from "../errors.js";
import { CLUSTER_LABEL, NETWORK_CLAIM_KIND, type NetworkClaim } from "../types.js";

export interface LoadedClaim {
  claim: NetworkClaim;
  cluster: string;
  file: string;
}

function clusterFromFile(file: string): string {
  const stem = basename(file, extname(file))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return stem === "" ? "cluster" : stem;
}

function itemsOf(document: unknown): unknown[] {
  if (document === null || document === undefined) return [];
  if (Array.isArray(document)) return document;
  const object = document as { kind?: unknown; items?: unknown };
  if (typeof object.kind === "string" && object.kind.endsWith("List") && Array.isArray(object.items)) return object.items;
  return [document];
}

/** What a set of files held: the claims, the documents skipped (not claims) and the items that cannot be claims. */
export interface LoadedFiles {
  claims: LoadedClaim[];
  /** One note per document that is another kind of object. */
  skipped: string[];
  /** Items that are not objects at all, each with where it was. */
  invalid: { file: string; where: string; message: string }[];
}

/**
 * Read NetworkClaims from YAML or JSON files: multi-document streams, lists, or `kind: …List`.
 * Objects of another kind (a ConfigMap in the same stream) are skipped with a note; items that
 * are not objects are reported, and reading goes on, so every problem is reported at once.
 */
export async function loadClaims(files: readonly string[]): Promise<LoadedFiles> {
  const loaded: LoadedClaim[] = [];
  const skipped: string[] = [];
  const invalid: LoadedFiles["invalid"] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new NetworkRegistryError("invalid-argument", `cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    const documents = parseAllDocuments(text);
    const syntax = documents.flatMap((d) => d.errors.map((e) => e.message));
    if (syntax.length > 0) throw new NetworkRegistryError("invalid-argument", `${file}: ${syntax.join("; ")}`);
    documents.forEach((document, d) => {
      const items = itemsOf(document.toJS());
      items.forEach((item, i) => {
        const where = `document ${d + 1}${items.length > 1 || Array.isArray(document.toJS()) ? ` item ${i + 1}` : ""} of ${file}`;
        if (typeof item !== "object" || item === null || Array.isArray(item)) {
          invalid.push({
            file,
            where,
            message: `${where}: expected a NetworkClaim object, got ${Array.isArray(item) ? "a list" : JSON.stringify(item)}`,
          });
          return;
        }
        const object = item as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } };
        if (typeof object.kind === "string" && object.kind !== NETWORK_CLAIM_KIND) {
          const what = [object.apiVersion, object.kind, object.metadata?.name].filter((x) => typeof x === "string").join(" ");
          skipped.push(`skipped ${where}: ${what} is not a NetworkClaim`);
          return;
        }
        const claim = item as NetworkClaim;
        const label = claim.metadata?.labels?.[CLUSTER_LABEL];
        loaded.push({ claim, cluster: typeof label === "string" && label !== "" ? label : clusterFromFile(file), file });
      });
    });
  }
  return { claims: qualify(loaded), skipped, invalid };
}

/**
 * With claims from more than one cluster, names are qualified as `<cluster>.<name>` so each
 * cluster keeps its own kube-apiserver claim while all ranges are checked against each other.
 * Parent and delegateTo names that refer to a claim of the same cluster are qualified too.
 */
function qualify(loaded: LoadedClaim[]): LoadedClaim[] {
  const clusters = new Set(loaded.map((l) => l.cluster));
  if (clusters.size <= 1) return loaded;
  const namesByCluster = new Map<string, Set<string>>();
  for (const l of loaded) {
    const set = namesByCluster.get(l.cluster) ?? new Set<string>();
    set.add(l.claim.metadata?.name);
    namesByCluster.set(l.cluster, set);
  }
  return loaded.map((l) => {
    const local = namesByCluster.get(l.cluster)!;
    const rename = (name: string) => (local.has(name) ? `${l.cluster}.${name}` : name);
    const claim = structuredClone(l.claim);
    if (claim.metadata !== undefined && typeof claim.metadata.name === "string")
      claim.metadata.name = `${l.cluster}.${claim.metadata.name}`;
    for (const record of claim.spec?.addressSpace ?? []) {
      if (record?.parent !== undefined && typeof record.parent.claim === "string") record.parent.claim = rename(record.parent.claim);
      if (Array.isArray(record?.delegateTo)) record.delegateTo = record.delegateTo.map((d) => (d === "*" ? d : rename(d)));
    }
    return { ...l, claim };
  });
}
