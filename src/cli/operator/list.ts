/** Printing one page of the operator query, shared by `jobs list` and `dlq list`. */
import type { ChokaQ } from '../../chokaq.js';
import type { JobQuery } from '../../operator/query-input.js';
import type { CliIo } from '../io.js';
import { numberFlag, queryFrom, type FilterValues } from './filters.js';
import { jobTable } from './render.js';

/** `parseArgs` options of a page besides its filters: order, size, cursor and `--json`. */
export const PAGE_OPTIONS = {
  sort: { type: 'string' },
  order: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/** {@link PAGE_OPTIONS} in a synopsis line. */
export const PAGE_SYNOPSIS = '[--sort KEY] [--order asc|desc] [--limit N] [--cursor C] [--json]';

/** Usage lines of {@link PAGE_OPTIONS}. */
export const PAGE_USAGE = `  --sort KEY           createdAt (default) or finishedAt (finished jobs only)
  --order ORDER        desc (default, newest first) or asc
  --limit N            jobs per page, 1-1000 (default 100)
  --cursor C           the page after the one that printed this cursor
  --json               print the API's result (with its count) as JSON`;

/** Values of {@link PAGE_OPTIONS} as parsed. */
export interface PageValues extends FilterValues {
  sort?: string | undefined;
  order?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
  json?: boolean | undefined;
}

/** The query of a page: the filters plus order, size and cursor (each checked by the API). */
export function pageQuery(values: PageValues): JobQuery {
  const query: Record<string, unknown> = { ...queryFrom(values) };
  if (values.sort !== undefined) query.sort = values.sort;
  if (values.order !== undefined) query.order = values.order;
  const limit = numberFlag(values.limit, '--limit');
  if (limit !== undefined) query.limit = limit;
  if (values.cursor !== undefined) query.cursor = values.cursor;
  return query;
}

/**
 * Prints one page of `query` with its count: a table and how to get the next page, or the page
 * as JSON with `count` added. Resolves to the exit code.
 */
export async function printPage(
  chokaq: ChokaQ,
  query: JobQuery,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const page = await chokaq.jobs.query(query);
  const count = await chokaq.jobs.count(query);
  if (json) {
    io.stdout.write(`${JSON.stringify({ ...page, count }, null, 2)}\n`);
    return 0;
  }
  if (page.jobs.length > 0) io.stdout.write(jobTable(page.jobs));
  const total = `${count.exact ? '' : 'about '}${count.count}`;
  io.stderr.write(`${page.jobs.length} shown of ${total} matching\n`);
  if (page.scan && !page.scan.complete) {
    io.stderr.write(
      `the payload scan stopped after ${page.scan.rowsPerTable} rows per table; more may match\n`,
    );
  }
  if (page.nextCursor !== null) io.stderr.write(`next page: --cursor ${page.nextCursor}\n`);
  return 0;
}
