/** The job matrix's tabs: shared by the matrix, its filter bar and its row actions. */

/** The tabs and the states each shows. */
export const TABS = {
  active: { label: 'Active', states: ['pending', 'fetched', 'processing'] },
  archive: { label: 'Archive', states: ['succeeded'] },
  dlq: { label: 'DLQ', states: ['dead'] },
} as const;

/** A tab of the job matrix. */
export type Tab = keyof typeof TABS;
