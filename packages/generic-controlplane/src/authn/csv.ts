/**
 * Records of a CSV file as Go's encoding/csv reads them with `TrimLeadingSpace` (RFC 4180 quoting,
 * `""` for a quote inside a quoted field, blank lines skipped), which is how kube-apiserver reads
 * its `--token-auth-file`. Each record comes with its 1-based line number.
 */
export function parseCsv(text: string): Array<{ line: number; fields: string[] }> {
  const records: Array<{ line: number; fields: string[] }> = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const start = line;
    const fields: string[] = [];
    let field = "";
    let atFieldStart = true;
    let quoted = false;
    let blank = true;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') {
          field += '"';
          i++;
        } else if (c === '"') quoted = false;
        else {
          if (c === "\n") line++;
          field += c;
        }
        continue;
      }
      if (atFieldStart && (c === " " || c === "\t")) continue;
      if (atFieldStart && c === '"') {
        quoted = true;
        atFieldStart = false;
        blank = false;
        continue;
      }
      if (c === ",") {
        fields.push(field);
        field = "";
        atFieldStart = true;
        blank = false;
        continue;
      }
      if (c === "\n") {
        i++;
        line++;
        break;
      }
      if (c === "\r" && text[i + 1] === "\n") continue;
      field += c;
      atFieldStart = false;
      blank = false;
    }
    if (quoted) throw new Error(`line ${start}: extraneous or missing " in quoted-field`);
    if (blank) continue;
    fields.push(field);
    records.push({ line: start, fields });
  }
  return records;
}
