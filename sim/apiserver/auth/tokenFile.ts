// kube-apiserver's --token-auth-file: CSV records `token,user,uid[,"group1,group2"]` read
// with Go's encoding/csv (fields may be quoted, "" is a quote inside a quoted field, records
// may have any number of fields), as tokenfile.NewCSV reads them. Pure.

export interface TokenEntry {
  token: string;
  username: string;
  uid: string;
  groups: string[];
}

export class TokenFileError extends Error {}

/** Go's csv.Reader with FieldsPerRecord = -1: records of fields; blank lines are skipped. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    // a blank line (only a line break) is no record
    if (text[i] === '\n') {
      i++;
      line++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      i += 2;
      line++;
      continue;
    }
    const record: string[] = [];
    const recordLine = line;
    for (;;) {
      let field = '';
      const column = i - (text.lastIndexOf('\n', i - 1) + 1) + 1;
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n)
            throw new TokenFileError(
              `record on line ${recordLine}; parse error on line ${line + 1}, column 0: extraneous or missing " in quoted-field`,
            );
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        const after = text[i];
        if (
          after !== undefined &&
          after !== ',' &&
          after !== '\n' &&
          !(after === '\r' && text[i + 1] === '\n')
        )
          throw new TokenFileError(
            `parse error on line ${line}, column ${column + field.length + 2}: extraneous or missing " in quoted-field`,
          );
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          if (text[i] === '"')
            throw new TokenFileError(
              `parse error on line ${line}, column ${column + field.length}: bare " in non-quoted field`,
            );
          field += text[i];
          i++;
        }
      }
      record.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') i++;
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    records.push(record);
  }
  return records;
}

/**
 * The entries of a token file, in file order (a later duplicate token wins when looked up).
 * Records with an empty token are skipped, as kube-apiserver skips them with a warning.
 */
export function parseTokenFile(text: string, path = 'tokens.csv'): TokenEntry[] {
  const out: TokenEntry[] = [];
  for (const record of parseCsv(text)) {
    if (record.length < 3)
      throw new TokenFileError(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    if (record[0] === '') continue;
    out.push({
      token: record[0],
      username: record[1],
      uid: record[2],
      // strings.Split: no trimming, and an empty fourth column is one empty group
      groups: record.length >= 4 ? record[3].split(',') : [],
    });
  }
  return out;
}

/** One record per entry, the groups quoted as one field (kube-apiserver's documented form). */
export function formatTokenFile(entries: TokenEntry[]): string {
  const field = (s: string) => (/[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s);
  return entries
    .map((e) => {
      const cols = [field(e.token), field(e.username), field(e.uid)];
      if (e.groups.length) cols.push(`"${e.groups.join(',').replace(/"/g, '""')}"`);
      return `${cols.join(',')}\n`;
    })
    .join('');
}
