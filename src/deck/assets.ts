/**
 * The Deck's front end: the files the build put beside this module (`ui/`: `index.html`,
 * `app.js`, `app.css`), read once, kept in memory with a gzip copy, sent with an ETag. Only
 * those three names are ever looked up, so the cache holds at most three entries.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { header, type DeckRequest, type DeckResponse } from './http.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The files of the build: nothing else is ever read, so no name reaches the file system. */
const ASSET_NAMES: ReadonlySet<string> = new Set(['index.html', 'app.js', 'app.css']);

interface Asset {
  body: Buffer;
  gzip: Buffer;
  etag: string;
  type: string;
}

/** The built front end of The Deck. */
export class DeckAssets {
  private readonly cache = new Map<string, Promise<Asset | null>>();

  constructor(private readonly dir = fileURLToPath(new URL('./ui/', import.meta.url))) {}

  /** Sends the file `name`; resolves `false` (sending nothing) when there is none. */
  async send(req: DeckRequest, res: DeckResponse, name: string): Promise<boolean> {
    const asset = ASSET_NAMES.has(name) ? await this.load(name) : null;
    if (asset === null) return false;
    res.setHeader('ETag', asset.etag);
    // Revalidated on every load: a new version of the package is picked up at once.
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Vary', 'Accept-Encoding');
    if (header(req, 'if-none-match') === asset.etag) {
      res.statusCode = 304;
      res.end();
      return true;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.type);
    if (/\bgzip\b/.test(header(req, 'accept-encoding') ?? '')) {
      res.setHeader('Content-Encoding', 'gzip');
      res.end(asset.gzip);
    } else res.end(asset.body);
    return true;
  }

  private load(name: string): Promise<Asset | null> {
    let asset = this.cache.get(name);
    if (asset === undefined) {
      asset = readFile(join(this.dir, name)).then(
        (body) => ({
          body,
          gzip: gzipSync(body, { level: 9 }),
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
          type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
        }),
        () => null,
      );
      this.cache.set(name, asset);
    }
    return asset;
  }
}
