import { describe, expect, it } from "vitest";
import { parseCsv } from "./csv.js";
import { TokenFileError, tokenFileAuthenticator } from "./token-file.js";

describe("token file", () => {
  it("reads kube-apiserver's CSV: token, user, uid and an optional quoted group list", async () => {
    const file = ['t1,alice,uid-1,"devs,ops"', "t2, bob, uid-2", "", '"t,3",carol,uid-3,"  spaced , groups ,"', ",ignored,uid-4"].join(
      "\n",
    );
    const tokens = tokenFileAuthenticator(file);
    expect(await tokens.authenticateToken("t1")).toEqual({ user: { name: "alice", uid: "uid-1", groups: ["devs", "ops"] } });
    expect(await tokens.authenticateToken("t2")).toEqual({ user: { name: "bob", uid: "uid-2", groups: [] } });
    expect(await tokens.authenticateToken("t,3")).toEqual({ user: { name: "carol", uid: "uid-3", groups: ["spaced", "groups"] } });
    expect(await tokens.authenticateToken("")).toBeUndefined();
    expect(await tokens.authenticateToken("t")).toBeUndefined();
  });

  it("refuses a file with a line of fewer than three columns, or an unterminated quote", () => {
    expect(() => tokenFileAuthenticator("t1,alice,uid-1\nt2,bob\n", "tokens.csv")).toThrow(
      new TokenFileError("token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 on line 2"),
    );
    expect(() => tokenFileAuthenticator('t1,alice,"uid\n')).toThrow(TokenFileError);
  });

  it("parses RFC 4180 quoting with doubled quotes and CRLF line ends", () => {
    expect(parseCsv('a,"b ""quoted""",c\r\nd,"multi\nline",e\r\n')).toEqual([
      { line: 1, fields: ["a", 'b "quoted"', "c"] },
      { line: 2, fields: ["d", "multi\nline", "e"] },
    ]);
  });
});
