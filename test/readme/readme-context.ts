/**
 * Ambient declarations for the names README snippets take from an earlier snippet or leave to
 * the reader. Every other name a snippet uses, the snippet imports or defines itself.
 */
export const README_CONTEXT = `// From the Quick start.
declare const chokaq: import('chokaq').ChokaQ;
declare const sendEmail: import('chokaq').JobDefinition<{ to: string; subject: string }>;
declare const id: string;

// From "When things go wrong".
interface Payment {
  orderId: string;
  amountCents: number;
}
declare const charge: import('chokaq').JobDefinition<Payment>;

// The reader's own.
declare function currentUser(
  req: import('node:http').IncomingMessage,
): Promise<{ email: string; admin: boolean } | null>;
declare const pool: import('pg').Pool;
declare const storage: import('chokaq').ChokaQOptions['storage'];
declare const jobs: NonNullable<import('chokaq').ChokaQOptions['jobs']>;
`;
