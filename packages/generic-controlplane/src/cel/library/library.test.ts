import { isCelError } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { compileExpression } from "../compile.js";

/** Evaluates a closed expression; returns the value or `{ error }`. */
function evaluate(source: string): unknown {
  const compiled = compileExpression(source, new Map());
  if (!compiled.ok) throw new Error(compiled.error);
  const result = compiled.expression.evaluate({});
  return isCelError(result) ? { error: result.message } : result;
}

/** Each expression must evaluate to true (the tables of upstream's library tests, as assertions). */
function truths(cases: string[]): void {
  for (const source of cases) {
    it(source, () => {
      expect(evaluate(source)).toBe(true);
    });
  }
}

function errors(cases: Array<[string, string]>): void {
  for (const [source, message] of cases) {
    it(`${source} fails`, () => {
      expect(evaluate(source)).toEqual({ error: expect.stringContaining(message) as unknown });
    });
  }
}

describe("lists", () => {
  truths([
    "[].isSorted()",
    "[1, 2, 3].isSorted()",
    "![3, 1, 2].isSorted()",
    "['a', 'b', 'b'].isSorted()",
    "[1.0, 2.5].isSorted()",
    "[].sum() == 0",
    "[1, 2, 3].sum() == 6",
    "[1.5, 2.5].sum() == 4.0",
    "[1, 3, 2].min() == 1",
    "[1, 3, 2].max() == 3",
    "['b', 'a'].min() == 'a'",
    "[1, 2, 2, 3].indexOf(2) == 1",
    "[1, 2, 2, 3].lastIndexOf(2) == 2",
    "[1, 2].indexOf(5) == -1",
    "[[1], [2]].indexOf([2]) == 1",
  ]);
  errors([
    ["[].min()", "min(list) argument must not be empty"],
    ["[].max()", "max(list) argument must not be empty"],
  ]);
});

describe("strings", () => {
  truths([
    "'hello'.charAt(1) == 'e'",
    "'hello'.indexOf('l') == 2",
    "'hello'.lastIndexOf('l') == 3",
    "'HeLLo'.lowerAscii() == 'hello'",
    "'hello'.upperAscii() == 'HELLO'",
    "'a-b-c'.replace('-', '_') == 'a_b_c'",
    "'a-b-c'.replace('-', '_', 1) == 'a_b-c'",
    "'a,b,c'.split(',') == ['a', 'b', 'c']",
    "'a,b,c'.split(',', 2) == ['a', 'b,c']",
    "'a,b,c'.split(',', 0) == [] && 'a,b,c'.split(',', -1) == ['a', 'b', 'c'] && 'abc'.split('') == ['a', 'b', 'c']",
    "'hello'.substring(1, 3) == 'el'",
    "'  x '.trim() == 'x'",
    "['a', 'b'].join('-') == 'a-b'",
    "strings.quote('a\"b') == '\"a\\\\\"b\"'",
  ]);
});

describe("regex", () => {
  truths([
    "'abc 123'.find('[0-9]+') == '123'",
    "'abc'.find('[0-9]+') == ''",
    "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
    "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
    "'123 abc 456'.findAll('[0-9]+', 0) == []",
    "'123 abc 456'.findAll('[0-9]+', -1) == ['123', '456']",
  ]);
  // A pattern computed at run time fails the call; a constant one fails compilation (below).
  errors([
    ["'abc'.find('[' + '')", "Illegal regex: error parsing regexp: missing closing ]: `[`"],
    ["'aa'.findAll('(a)' + '\\\\1')", "Illegal regex: error parsing regexp: invalid escape sequence: `\\1`"],
    ["'aa'.matches('(a)' + '\\\\1')", "error parsing regexp: invalid escape sequence: `\\1`"],
  ]);

  it("refuses a constant pattern RE2 refuses when the expression compiles", () => {
    expect(compileExpression("'aa'.find('(a)\\\\1') == 'aa'", new Map())).toEqual({
      ok: false,
      error: "program instantiation failed: error parsing regexp: invalid escape sequence: `\\1`",
    });
    expect(compileExpression("'aa'.findAll('(?=a)', 1) == []", new Map())).toEqual({
      ok: false,
      error: "program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
    });
    expect(compileExpression("'aa'.matches('x++')", new Map())).toEqual({
      ok: false,
      error: "compilation failed: ERROR: <input>:1:14: invalid matches argument\n | 'aa'.matches('x++')\n | .............^",
    });
  });

  it("runs in time linear in the text where a backtracking engine never finishes", () => {
    const text = `${"a".repeat(5000)}!`;
    expect(evaluate(`'${text}'.find('(a+)+$') == '' && '${text}'.findAll('(a+)+$').size() == 0 && !'${text}'.matches('(a+)+$')`)).toBe(
      true,
    );
  });
});

describe("quantity", () => {
  truths([
    "isQuantity('1.5Gi')",
    "isQuantity('200m')",
    "!isQuantity('1.5GB')",
    "!isQuantity('')",
    "quantity('1000m') == quantity('1')",
    "quantity('1Ki') == quantity('1024')",
    "quantity('1.5Gi').isGreaterThan(quantity('1Gi'))",
    "quantity('200M').isLessThan(quantity('1Gi'))",
    "quantity('200M').compareTo(quantity('0.2G')) == 0",
    "quantity('1').compareTo(quantity('2')) == -1",
    "quantity('50k').add(quantity('20')) == quantity('50.02k')",
    "quantity('50k').add(20) == quantity('50020')",
    "quantity('50k').sub(quantity('20')) == quantity('49980')",
    "quantity('50k').sub(20) == quantity('49.98k')",
    "quantity('-1').sign() == -1 && quantity('0').sign() == 0 && quantity('5m').sign() == 1",
    "quantity('50k').isInteger() && !quantity('50m').isInteger()",
    "quantity('50k').asInteger() == 50000",
    "quantity('1.5').asApproximateFloat() == 1.5",
    "quantity('9999999999999999999999999999999999999').isInteger() == false",
  ]);
  errors([
    ["quantity('1.5GB')", "quantities must match the regular expression"],
    ["quantity('1m3')", "unable to parse quantity's suffix"],
    ["quantity('abc')", "quantities must match the regular expression"],
    ["quantity('50m').asInteger()", "cannot convert value to integer"],
  ]);
});

describe("ip and cidr", () => {
  truths([
    "isIP('192.168.0.1')",
    "isIP('2001:db8::68')",
    "!isIP('192.168.0.01')",
    "!isIP('::ffff:192.168.0.1')",
    "!isIP('fe80::1%eth0')",
    "!isIP('192.168.0.1/24')",
    "ip('192.168.0.1').family() == 4",
    "ip('2001:db8::68').family() == 6",
    "ip.isCanonical('2001:db8::68')",
    "!ip.isCanonical('2001:DB8::68')",
    "!ip.isCanonical('2001:db8:0:0:0:0:0:68')",
    "string(ip('2001:DB8:0:0:0:0:0:68')) == '2001:db8::68'",
    "ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('10.0.0.1').isLoopback()",
    "ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified()",
    "ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()",
    "ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()",
    "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && !ip('127.0.0.1').isGlobalUnicast()",
    "ip('10.0.0.1') == ip('10.0.0.1') && ip('10.0.0.1') != ip('10.0.0.2')",
    "isCIDR('192.168.0.0/24')",
    "!isCIDR('192.168.0.0')",
    "!isCIDR('192.168.0.0/33')",
    "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))",
    "cidr('192.168.0.0/24').containsIP('192.168.0.1')",
    "!cidr('192.168.0.0/24').containsIP('192.168.1.1')",
    "!cidr('192.168.0.0/24').containsIP('::1')",
    "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))",
    "cidr('192.168.0.0/24').containsCIDR('192.168.0.128/25')",
    "!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')",
    "cidr('2001:db8::/32').containsIP('2001:db8::1')",
    "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')",
    "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
    "string(cidr('192.168.0.1/24').masked()) == '192.168.0.0/24'",
    "cidr('192.168.0.0/24').prefixLength() == 24",
  ]);
  errors([
    ["ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address is not allowed"],
    ["ip('fe80::1%eth0')", "IP address with zone value is not allowed"],
    ["ip('1.2.3')", "unable to parse IP"],
    ["cidr('1.2.3.4')", "invalid prefix"],
  ]);
});

describe("format", () => {
  truths([
    "!format.dns1123Label().validate('my-name').hasValue()",
    "format.dns1123Label().validate('My-Name').hasValue()",
    "format.dns1123Label().validate('My-Name').value() == [\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"]",
    "!format.dns1123Subdomain().validate('a.b.c').hasValue()",
    "format.dns1035Label().validate('1abc').hasValue()",
    "!format.dns1035Label().validate('abc-1').hasValue()",
    "!format.dns1123LabelPrefix().validate('my-prefix-').hasValue()",
    "!format.qualifiedName().validate('example.com/name').hasValue()",
    "format.labelValue().validate('-bad').hasValue()",
    "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()",
    "format.uuid().validate('not-a-uuid').hasValue()",
    "!format.date().validate('2024-02-29').hasValue() && format.date().validate('2023-02-29').hasValue()",
    "!format.datetime().validate('2024-02-29T10:00:00Z').hasValue()",
    "!format.byte().validate('aGVsbG8=').hasValue() && format.byte().validate('@@').hasValue()",
    "!format.uri().validate('https://example.com/a').hasValue() && format.uri().validate('no scheme').hasValue()",
    "format.named('dns1123Label').hasValue() && !format.named('bogus').hasValue()",
    "!format.named('dns1123Label').value().validate('ok').hasValue()",
  ]);
});

describe("url", () => {
  truths([
    "isURL('https://example.com:8443/path?a=b')",
    "isURL('/absolute/path')",
    "!isURL('relative/path')",
    "url('https://user@example.com:8443/p%20q?a=1&a=2&b=3').getScheme() == 'https'",
    "url('https://example.com:8443/path').getHost() == 'example.com:8443'",
    "url('https://example.com:8443/path').getHostname() == 'example.com'",
    "url('https://example.com:8443/path').getPort() == '8443'",
    "url('https://[::1]:80/').getHostname() == '::1'",
    "url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://example.com/p%20q').getEscapedPath() == '/p%20q'",
    "url('https://example.com/?a=1&a=2&b=3').getQuery() == {'a': ['1', '2'], 'b': ['3']}",
    "url('/a/b').getScheme() == '' && url('/a/b').getHost() == '' && url('/a/b').getEscapedPath() == '/a/b'",
    "string(url('https://example.com/x')) == 'https://example.com/x'",
  ]);
  errors([["url('relative')", "invalid URI for request"]]);
});

describe("optionals", () => {
  truths(["optional.of(1).hasValue()", "!optional.none().hasValue()", "optional.none().orValue(2) == 2", "optional.of(1).value() == 1"]);
  errors([["optional.none().value()", "optional.none() dereference"]]);
});
