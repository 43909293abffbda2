/**
 * A customers file read into records: the first line names the fields (spec 2.7), each further
 * non-empty line is one customer. Papaparse is loaded only when a file is chosen, so the campaigns
 * page does not carry it. Cells stay text except the amounts and counts the API wants as numbers (a
 * phone number must stay text: `+9198...` is not a number to keep).
 */
import { NUMBER_FIELDS } from './model';

export type FileRow = {
  /** The line of the file the row is on (the header is line 1). */
  line: number;
  record: Record<string, unknown>;
};

export type ReadFile = { fields: string[]; rows: FileRow[]; problems: string[] };

function cellValue(field: string, cell: string): unknown {
  if (!NUMBER_FIELDS.has(field)) return cell;
  const number = Number(cell);
  // A cell that is not a number goes as written: the API then names the field and the row.
  return cell !== '' && Number.isFinite(number) ? number : cell;
}

export async function readCustomersFile(file: File): Promise<ReadFile> {
  const { default: Papa } = await import('papaparse');
  const parsed = Papa.parse<string[]>(await file.text(), { header: false, skipEmptyLines: false });
  const [header = [], ...lines] = parsed.data;
  const fields = header.map((f) => f.trim());
  const problems = parsed.errors.map((e) => `Line ${e.row === undefined ? '?' : e.row + 1}: ${e.message}`);
  if (fields.length === 0 || fields.every((f) => f === ''))
    problems.unshift('The file has no header line naming the fields.');
  const rows: FileRow[] = [];
  lines.forEach((cells, i) => {
    if (cells.every((c) => c.trim() === '')) return;
    const record: Record<string, unknown> = {};
    fields.forEach((field, j) => {
      const cell = (cells[j] ?? '').trim();
      if (field && cell !== '') record[field] = cellValue(field, cell);
    });
    if (cells.length > fields.length)
      problems.push(`Line ${i + 2}: more cells than the header names; the extra ones are left out.`);
    rows.push({ line: i + 2, record });
  });
  return { fields, rows, problems };
}
