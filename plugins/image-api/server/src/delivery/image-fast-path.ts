/**
 * The fast path for hot image bytes (docs/performance.md, "Serving"): a GET or HEAD of a direct file
 * or a transformation whose bytes are in memory (delivery/hot-file-cache.ts), and whose image lookup is
 * fresh (delivery/image-sources.ts), is answered before Koa sees the request: no context
 * object, no middleware stack. Everything else (a Range, a lookup or a render to do, an error) goes
 * to the app as usual, where delivery/image-delivery.ts answers it with the same headers.
 */
import type { IncomingMessage, Server, ServerResponse } from 'http';
import fs from 'fs';
import path from 'path';
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../get-service';
import { fileEtag, immutableHeaders, sendingWithin, type ImageCaching } from './immutable-answer';
import { isNotModified } from './conditional-request';
import type { HotEntry } from './hot-file-cache';
import { showsInline } from './inert-files';
import { readUploadsPath, UPLOADS_PREFIX } from './uploads-path';
import { FILE_NAME } from './direct-files';
import { imageNameOf } from './image-sources';
import { isKeptResultFile } from '../images/naming';

export function installImageFastPath(strapi: Core.Strapi, server: Server): void {
  const servesFiles = (strapi.config.get('plugin::upload.provider', 'local') ?? 'local') === 'local';
  const uploadsDir = path.join(strapi.dirs.static.public, 'uploads');

  /** The hot entry of a direct file and its image, if everything about it is known without waiting. */
  function directFile(fileName: string): { entry: HotEntry; of: ImageCaching } | undefined {
    if (!FILE_NAME.test(fileName) || isKeptResultFile(fileName)) return undefined;
    const name = imageNameOf(fileName);
    const sources = getService(strapi, 'image-sources');
    const image = name ? sources.peek(name) : undefined;
    if (!image || !sources.isLive(image)) return undefined;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(path.join(uploadsDir, fileName));
    } catch {
      return undefined;
    }
    const entry = getService(strapi, 'hot-files').get(`file:${fileName}:${fileEtag(stat.mtimeMs, stat.size)}`);
    return entry && { entry, of: image };
  }

  function serve(req: IncomingMessage, res: ServerResponse): boolean {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.headers.range) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
    const config = getConfig(strapi);
    let entry: HotEntry | undefined;
    let varyAccept = false;
    let of: ImageCaching | undefined;
    if (config.transformPath !== null && pathname.startsWith(`${config.transformPath}/`)) {
      const recalled = getService(strapi, 'transforms').recall(pathname.slice(config.transformPath.length), req.headers.accept);
      if (!recalled) return false;
      entry = getService(strapi, 'hot-files').get(recalled.key);
      varyAccept = recalled.varyAccept;
      of = recalled.of;
      if (entry) getService(strapi, 'renditions').touch(recalled.key);
    } else if (servesFiles && pathname.startsWith(UPLOADS_PREFIX)) {
      // The stored name as stored: any other spelling goes to the app, which answers it 404.
      const uploads = readUploadsPath(pathname);
      const found = uploads && uploads !== 'other-spelling' ? directFile(uploads.fileName) : undefined;
      if (found) ({ entry, of } = found);
    }
    // Raster images alone: anything else goes to the app, which serves it inert (delivery/inert-files.ts).
    if (!entry || !showsInline(entry.type)) return false;

    const headers = immutableHeaders(entry, { maxAgeSeconds: config.cacheMaxAgeSeconds, varyAccept, of });
    const notModified = isNotModified(req.headers, entry);
    for (const [name, value] of Object.entries(headers)) if (!(notModified && name === 'Content-Type')) res.setHeader(name, value);
    if (notModified) {
      res.statusCode = 304;
      res.end();
      return true;
    }
    res.statusCode = 200;
    res.setHeader('Content-Length', entry.bytes.length);
    sendingWithin(res, config.sendIdleTimeoutMs);
    res.end(req.method === 'HEAD' ? undefined : entry.bytes);
    return true;
  }

  // Ahead of Koa's own listener: what the fast path does not answer goes on to it untouched.
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let served = false;
    try {
      served = serve(req, res);
    } catch (error) {
      strapi.log.warn(`image-api: the image fast path failed, the app answers instead: ${(error as Error)?.message ?? error}`);
    }
    if (!served) for (const listener of listeners) listener.call(server, req, res);
  });
}
