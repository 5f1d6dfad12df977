/**
 * The smallest shape of a Node.js HTTP request and response that ChokaQ's handlers use, so they
 * mount on `node:http`, Express or Fastify (`reply.raw`) without ChokaQ depending on their types.
 * `http.IncomingMessage` and `http.ServerResponse` fit them.
 */

/** The request side: what a handler reads. */
export interface HttpRequest {
  method?: string | undefined;
  url?: string | undefined;
}

/** The response side: what a handler writes. */
export interface HttpResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

/** A plain `(req, res)` handler. */
export type HttpHandler = (req: HttpRequest, res: HttpResponse) => void;

/** Ends `res` with `status`, a content type and `body`. */
export function reply(res: HttpResponse, status: number, contentType: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}
