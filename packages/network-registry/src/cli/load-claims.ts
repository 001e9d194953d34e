import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { parseAllDocuments } from "yaml";
import { NetworkRegistryError } from "../errors.js";
import type { NetworkClaim } from "../types.js";

/** Label that names the cluster a claim belongs to; defaults to the file name. */
export const CLUSTER_LABEL = "kana.kubekit.io/cluster";

export interface LoadedClaim {
  claim: NetworkClaim;
  cluster: string;
  file: string;
}

function clusterFromFile(file: string): string {
  const stem = basename(file, extname(file)).toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
  return stem === "" ? "cluster" : stem;
}

function itemsOf(document: unknown): unknown[] {
  if (document === null || document === undefined) return [];
  if (Array.isArray(document)) return document;
  const object = document as { kind?: unknown; items?: unknown };
  if (typeof object.kind === "string" && object.kind.endsWith("List") && Array.isArray(object.items)) return object.items;
  return [document];
}

/** Read NetworkClaims from YAML or JSON files: multi-document streams, lists, or `kind: …List`. */
export async function loadClaims(files: readonly string[]): Promise<LoadedClaim[]> {
  const loaded: LoadedClaim[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new NetworkRegistryError("invalid-argument", `cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0) {
        throw new NetworkRegistryError("invalid-argument", `${file}: ${document.errors[0]!.message}`);
      }
      for (const item of itemsOf(document.toJS())) {
        if (typeof item !== "object" || item === null) {
          throw new NetworkRegistryError("invalid-claim", `${file}: expected NetworkClaim objects`);
        }
        const claim = item as NetworkClaim;
        const label = claim.metadata?.labels?.[CLUSTER_LABEL];
        loaded.push({ claim, cluster: typeof label === "string" && label !== "" ? label : clusterFromFile(file), file });
      }
    }
  }
  return qualify(loaded);
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
    if (claim.metadata !== undefined && typeof claim.metadata.name === "string") claim.metadata.name = `${l.cluster}.${claim.metadata.name}`;
    for (const record of claim.spec?.addressSpace ?? []) {
      if (record?.parent !== undefined && typeof record.parent.claim === "string") record.parent.claim = rename(record.parent.claim);
      if (Array.isArray(record?.delegateTo)) record.delegateTo = record.delegateTo.map((d) => (d === "*" ? d : rename(d)));
    }
    return { ...l, claim };
  });
}
