/**
 * Parses the bodies of the upload routes, with limits that fit the image limit (Strapi's body parser
 * refuses urlencoded bodies over 56 KB, and formidable mangles parts without a Content-Type).
 * - multipart (busboy): `source`/`image` parts stream to a per-request temp folder, capped; a part
 *   with no filename whose content is a URL or base64 text counts as a text field;
 * - urlencoded and JSON (co-body): read up to the limit, never past it;
 * - the temp folder is removed when the request ends, whatever happened.
 * A refused body is not answered here: the error is left in `ctx.state.imageApi.bodyError` so the
 * controller answers it in the client's format.
 */
import Busboy, { type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import coBody from 'co-body';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { pipeline } from 'stream/promises';
import type { Context, Next } from 'koa';
import { ApiError, errors } from '../services/api-error';
import type { FilePart } from '../services/request-params';

export const TMP_ROOT = path.join(os.tmpdir(), 'strapi-image-api');

export interface UploadRequestState {
  tmpDir: string;
  bodyError: ApiError | null;
}

export interface BodyLimits {
  /** Largest image, bytes. */
  maxBytes: number;
  /** Largest urlencoded/JSON body or text field: base64 of `maxBytes`, percent-encoded, plus room. */
  maxTextBytes: number;
}

export const bodyLimitsFor = (maxBytes: number): BodyLimits => ({
  maxBytes,
  maxTextBytes: Math.ceil(maxBytes * (4 / 3) * 1.25) + 1_000_000,
});

const SOURCE_PARTS = new Set(['source', 'image']);
const TEXT_SOURCE_HEAD = /^\s*(https?:\/\/|data:|[A-Za-z0-9+/_=\s-]+$)/i;

type Fields = Record<string, string | string[]>;

function addField(fields: Fields, name: string, value: string) {
  const current = fields[name];
  if (current === undefined) fields[name] = value;
  else fields[name] = Array.isArray(current) ? [...current, value] : [current, value];
}

/** A source part sent without filename or type holds either text (URL, base64) or raw bytes. */
async function isTextSource(filepath: string): Promise<boolean> {
  const handle = await fs.promises.open(filepath, 'r');
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return TEXT_SOURCE_HEAD.test(head.subarray(0, bytesRead).toString('latin1'));
  } finally {
    await handle.close();
  }
}

interface SourcePart extends FilePart {
  name: string;
  /** Sent with neither filename nor Content-Type: text or raw bytes, decided by its content. */
  untyped: boolean;
}

async function parseMultipart(ctx: Context, tmpDir: string, limits: BodyLimits) {
  const fields: Fields = {};
  const parts: SourcePart[] = [];
  const writes: Promise<void>[] = [];
  let tooBig = false;

  await new Promise<void>((resolve, reject) => {
    let parser: BusboyInstance;
    try {
      parser = Busboy({
        headers: ctx.req.headers as BusboyHeaders,
        limits: { fileSize: limits.maxTextBytes, fieldSize: limits.maxTextBytes, fields: 100, files: 5, parts: 120 },
        isPartAFile: (name, _type, filename) => SOURCE_PARTS.has(name ?? '') || filename !== undefined,
      });
    } catch {
      reject(errors.badRequest('Malformed multipart body'));
      return;
    }
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) tooBig = true;
      addField(fields, name, value);
    });
    parser.on('file', (name, stream, filename, _encoding, mimetype) => {
      if (!SOURCE_PARTS.has(name)) {
        stream.resume();
        return;
      }
      const filepath = path.join(tmpDir, `part-${parts.length + 1}`);
      const untyped = filename === undefined && mimetype === 'text/plain';
      parts.push({ name, filepath, originalFilename: filename ?? null, size: 0, untyped });
      stream.on('limit', () => {
        tooBig = true;
      });
      writes.push(pipeline(stream, fs.createWriteStream(filepath)));
    });
    parser.on('finish', resolve);
    parser.on('error', () => reject(errors.badRequest('Malformed multipart body')));
    ctx.req.on('aborted', () => reject(errors.badRequest('Request aborted')));
    ctx.req.pipe(parser);
  });
  await Promise.all(writes);
  if (tooBig) throw errors.tooBig(limits.maxBytes);

  // The first real file of each name wins; untyped parts holding text are text fields.
  const files: Record<string, FilePart> = {};
  for (const part of parts) {
    if (part.untyped && (await isTextSource(part.filepath))) {
      addField(fields, part.name, await fs.promises.readFile(part.filepath, 'utf8'));
    } else if (!files[part.name]) {
      const { filepath, originalFilename } = part;
      files[part.name] = { filepath, originalFilename, size: (await fs.promises.stat(filepath)).size };
    }
  }
  return { fields, files };
}

async function parseText(ctx: Context, limits: BodyLimits): Promise<unknown> {
  const options = { limit: limits.maxTextBytes, strict: true, queryString: { arrayLimit: 20, depth: 2 } };
  try {
    return ctx.is('json') ? await coBody.json(ctx, options) : await coBody.form(ctx, options);
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw errors.tooBig(limits.maxBytes);
    throw errors.badRequest('Malformed request body');
  }
}

/** The body middleware of the upload routes (see the file comment). */
export function uploadBody(limitsOf: () => BodyLimits) {
  return async (ctx: Context, next: Next) => {
    await fs.promises.mkdir(TMP_ROOT, { recursive: true });
    const tmpDir = await fs.promises.mkdtemp(path.join(TMP_ROOT, 'req-'));
    const state: UploadRequestState = { tmpDir, bodyError: null };
    ctx.state.imageApi = state;
    try {
      const limits = limitsOf();
      const request = ctx.request as unknown as { body?: unknown; files?: Record<string, FilePart> };
      request.body = {};
      try {
        if (['POST', 'PUT', 'PATCH'].includes(ctx.method)) {
          if (ctx.is('multipart')) {
            const { fields, files } = await parseMultipart(ctx, tmpDir, limits);
            request.body = fields;
            request.files = files;
          } else if (ctx.is('json', 'urlencoded')) {
            request.body = (await parseText(ctx, limits)) ?? {};
          }
        }
      } catch (error) {
        state.bodyError = error instanceof ApiError ? error : errors.badRequest('Malformed request body');
        // The rest of the body is not read: close the connection once answered.
        ctx.set('Connection', 'close');
      }
      await next();
    } finally {
      await fs.promises.rm(tmpDir, { recursive: true, force: true });
    }
  };
}
