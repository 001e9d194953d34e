import { readFile } from "node:fs/promises";
import type { UserInfo } from "./user.js";
import { parseCsv } from "./csv.js";
import type { AuthenticationResult, TokenAuthenticator } from "./types.js";
import { secretEquals } from "./secret-equal.js";

/** A token file could not be read as kube-apiserver's `--token-auth-file` format. */
export class TokenFileError extends Error {
  override readonly name = "TokenFileError";
}

/**
 * upstream `token/tokenfile`: static bearer tokens from a CSV of `token,user,uid,"group1,group2"`
 * lines (the groups column is optional). Lines with an empty token are skipped; a line with fewer
 * than three columns makes the whole file invalid, as kube-apiserver refuses to start with it.
 */
export function tokenFileAuthenticator(csv: string, source = "token file"): TokenAuthenticator {
  const users = new Map<string, UserInfo>();
  let records;
  try {
    records = parseCsv(csv);
  } catch (error) {
    throw new TokenFileError(`${source}: ${(error as Error).message}`);
  }
  for (const { line, fields } of records) {
    if (fields.length < 3)
      throw new TokenFileError(
        `token file '${source}' must have at least 3 columns (token, user name, user uid), found ${fields.length} on line ${line}`,
      );
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === "") continue;
    const user: UserInfo = {
      name,
      uid,
      groups: (groups ?? "")
        .split(",")
        .map((g) => g.trim())
        .filter((g) => g !== ""),
    };
    users.set(token, user);
  }
  return {
    authenticateToken(token: string): Promise<AuthenticationResult | undefined> {
      // Compare every stored token in constant time, so response timing says nothing about near misses.
      let found: UserInfo | undefined;
      for (const [known, user] of users) {
        if (secretEquals(token, known)) found = user;
      }
      return Promise.resolve(found === undefined ? undefined : { user: { ...found, groups: [...found.groups] } });
    },
  };
}

/** Reads `--token-auth-file`. */
export async function readTokenFile(path: string): Promise<TokenAuthenticator> {
  return tokenFileAuthenticator(await readFile(path, "utf8"), path);
}
