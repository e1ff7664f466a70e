/**
 * Parses the bodies of the upload routes, with limits that fit the image limit (Strapi's body parser
 * refuses urlencoded bodies over 56 KB, and formidable mangles parts without a Content-Type).
 * - multipart (busboy): `source`/`image` parts are collected in memory, capped, into buffers lent
 *   by a pool (see buffer-pool.ts) and given back when the request ends; a part with no filename
 *   whose content is a URL or base64 text counts as a text field;
 * - urlencoded and JSON (co-body): read up to the limit, never past it; a long base64 `source`/`image`
 *   in a urlencoded body is decoded straight into a pooled buffer and becomes a nameless file part;
 * - a per-request temp folder (URL downloads) is made on demand and removed when the request ends,
 *   whatever happened.
 * A refused body is not answered here: the error is left in `ctx.state.imageApi.bodyError` so the
 * controller answers it in the client's format.
 */
import Busboy, { type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import coBody from 'co-body';
import qs from 'qs';
import fs from 'fs';
import os from 'os';
import path from 'path';
import type { Context, Next } from 'koa';
import { ApiError, errors } from '../services/api-error';
import { BufferPool, type BufferLease } from '../services/buffer-pool';
import { decodeFormBase64 } from '../services/base64-source';
import type { FilePart } from '../services/request-params';

/** Where per-request folders go unless the `tmpDir` option says otherwise. */
export const DEFAULT_TMP_ROOT = path.join(os.tmpdir(), 'strapi-image-api');

export interface UploadRequestState {
  /** The request's own temp folder, made on first use (URL downloads), removed when it ends. */
  tempDir(): Promise<string>;
  /** `size` bytes lent from the pool for this request (contents undefined), given back when it ends. */
  borrow(size: number): Buffer;
  bodyError: ApiError | null;
}

export interface BodyLimits {
  /** Parent of the per-request temp folders. */
  tmpRoot: string;
  /** Largest image, bytes. */
  maxBytes: number;
  /** Largest urlencoded/JSON body or text field: base64 of `maxBytes`, percent-encoded, plus room. */
  maxTextBytes: number;
}

export const bodyLimitsFor = (maxBytes: number, tmpRoot: string | null): BodyLimits => ({
  tmpRoot: tmpRoot ?? DEFAULT_TMP_ROOT,
  maxBytes,
  maxTextBytes: Math.ceil(maxBytes * (4 / 3) * 1.25) + 1_000_000,
});

const SOURCE_PARTS = new Set(['source', 'image']);
/** Room for multipart boundaries, part headers and the small text fields next to the image. */
const MULTIPART_OVERHEAD = 1_000_000;
const TEXT_SOURCE_HEAD = /^\s*(https?:\/\/|data:|[A-Za-z0-9+/_=\s-]+$)/i;

type Fields = Record<string, string | string[]>;

function addField(fields: Fields, name: string, value: string) {
  const current = fields[name];
  if (current === undefined) fields[name] = value;
  else fields[name] = Array.isArray(current) ? [...current, value] : [current, value];
}

interface SourcePart extends FilePart {
  name: string;
  /** Sent with neither filename nor Content-Type: text or raw bytes, decided by its content. */
  untyped: boolean;
}

/**
 * Multipart with busboy. Image parts are collected in memory: each is capped (10 MB for a file part,
 * the text limit for an untyped one that may hold base64), parsing stops the moment a cap is
 * passed, and nothing touches the disk.
 */
async function parseMultipart(ctx: Context, limits: BodyLimits, borrow: (size: number) => Buffer) {
  const fields: Fields = {};
  const parts: SourcePart[] = [];
  let tooBig = false;

  await new Promise<void>((resolve, reject) => {
    let parser: BusboyInstance;
    // Stops parsing at once; the caller answers and discards the rest.
    const abort = (error: unknown) => {
      ctx.req.unpipe(parser);
      reject(error);
    };
    try {
      parser = Busboy({
        headers: ctx.req.headers as BusboyHeaders,
        // One byte over the largest part, so the byte cap (not a silent truncation) ends an oversized one.
        limits: { fileSize: limits.maxTextBytes + 1, fieldSize: limits.maxTextBytes, fields: 100, files: 5, parts: 120 },
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
      const untyped = filename === undefined && mimetype === 'text/plain';
      const part: SourcePart = { name, bytes: Buffer.alloc(0), originalFilename: filename ?? null, size: 0, untyped };
      parts.push(part);
      // A part that is certainly a file stops at the image limit; an untyped one may hold base64 text.
      const cap = untyped ? limits.maxTextBytes : limits.maxBytes;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        part.size += chunk.length;
        if (part.size > cap) abort(errors.tooBig(limits.maxBytes));
        else chunks.push(chunk);
      });
      stream.on('end', () => {
        part.bytes = borrow(part.size);
        let offset = 0;
        for (const chunk of chunks) offset += chunk.copy(part.bytes, offset);
      });
      // A part cut short (truncated multipart) errors on its own stream: without this listener that
      // error would be unhandled and take the process down.
      stream.on('error', () => abort(errors.badRequest('Malformed multipart body')));
    });
    parser.on('finish', resolve);
    parser.on('error', () => reject(errors.badRequest('Malformed multipart body')));
    ctx.req.on('aborted', () => abort(errors.badRequest('Request aborted')));
    ctx.req.pipe(parser);
  });
  if (tooBig) throw errors.tooBig(limits.maxBytes);

  // The first real file of each name wins; untyped parts holding text are text fields.
  const files: Record<string, FilePart> = {};
  for (const part of parts) {
    if (part.untyped && TEXT_SOURCE_HEAD.test(part.bytes.subarray(0, 1024).toString('latin1'))) {
      addField(fields, part.name, part.bytes.toString('utf8'));
    } else if (!files[part.name]) {
      const { bytes, originalFilename, size } = part;
      files[part.name] = { bytes, originalFilename, size };
    }
  }
  return { fields, files };
}

const QUERY_STRING = { arrayLimit: 20, depth: 2 };
/** Values this long are image sources (base64, in practice) and skip the general parser. */
const LARGE_VALUE = 32 * 1024;

/** As qs decodes: a malformed percent-escape leaves the text as it was. */
const decodeComponent = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * A urlencoded body. A base64 image makes it megabytes long, and the general parser (qs) spends
 * longer on it than the image work: `source`/`image` values that long are cut out of the body and
 * decoded on their own, the rest goes through qs as before. The common form of base64 is decoded
 * straight to bytes (decodeFormBase64) and handed on as a file part without a name, which is what
 * a decoded base64 source amounts to; any other value is percent-decoded to text as qs would.
 */
function parseForm(body: Buffer, maxBytes: number, borrow: (size: number) => Buffer): { fields: Fields; files: Record<string, FilePart> } {
  const files: Record<string, FilePart> = {};
  if (body.length < LARGE_VALUE) return { fields: qs.parse(body.toString('utf8'), QUERY_STRING) as Fields, files };
  const small: string[] = [];
  const large: Array<[string, string]> = [];
  const decoded = new Map<string, Buffer>();
  let start = 0;
  while (start <= body.length) {
    const amp = body.indexOf(0x26 /* & */, start);
    const end = amp === -1 ? body.length : amp;
    const eq = body.subarray(start, end).indexOf(0x3d /* = */);
    const name = eq === -1 ? '' : decodeComponent(body.toString('latin1', start, start + eq).replace(/\+/g, ' '));
    if (end - start >= LARGE_VALUE && SOURCE_PARTS.has(name)) {
      const bytes = decoded.has(name) ? null : decodeFormBase64(body, start + eq + 1, end, maxBytes, borrow);
      if (bytes) decoded.set(name, bytes);
      else {
        const value = body.toString('latin1', start + eq + 1, end);
        large.push([name, decodeComponent(value.includes('+') ? value.replace(/\+/g, ' ') : value)]);
      }
    } else if (end > start) {
      small.push(body.toString('latin1', start, end));
    }
    start = end + 1;
  }
  const fields = qs.parse(Buffer.from(small.join('&'), 'latin1').toString('utf8'), QUERY_STRING) as Fields;
  for (const [name, value] of large) addField(fields, name, value);
  for (const [name, bytes] of decoded) {
    // Text `source` comes before text `image` (request-params): a decoded `image` must not overtake
    // a `source` given as text.
    if (name === 'image' && fields.source !== undefined) addField(fields, name, bytes.toString('base64'));
    else files[name] = { bytes, originalFilename: null, size: bytes.length };
  }
  return { fields, files };
}

async function parseText(
  ctx: Context,
  limits: BodyLimits,
  borrow: (size: number) => Buffer
): Promise<{ fields: unknown; files: Record<string, FilePart> }> {
  const options = { limit: limits.maxTextBytes, strict: true };
  try {
    if (ctx.is('json')) return { fields: await coBody.json(ctx, options), files: {} };
    // As bytes (encoding null): the form is split and decoded from them (see parseForm).
    const body = (await coBody.text(ctx, { ...options, encoding: null as unknown as string })) as unknown as Buffer;
    return parseForm(body, limits.maxBytes, borrow);
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw errors.tooBig(limits.maxBytes);
    throw errors.badRequest('Malformed request body');
  }
}

/** The body middleware of the upload routes (see the file comment). */
export function uploadBody(limitsOf: () => BodyLimits) {
  // Sized for typical images: bigger parts get buffers of their own.
  const pool = new BufferPool({ minBytes: 256 * 1024, maxBytes: 32 * 1024 * 1024, maxIdleBytes: 32 * 1024 * 1024 });
  // The temp root is made once, not on every URL upload; made again if it went away meanwhile.
  const roots = new Map<string, Promise<unknown>>();
  const requestFolder = async (root: string): Promise<string> => {
    const made = () => {
      let making = roots.get(root);
      if (!making) {
        // A failure is not kept: the next request tries again.
        making = fs.promises.mkdir(root, { recursive: true }).catch((error) => {
          roots.delete(root);
          throw error;
        });
        roots.set(root, making);
      }
      return making;
    };
    await made();
    try {
      return await fs.promises.mkdtemp(path.join(root, 'req-'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      roots.delete(root);
      await made();
      return fs.promises.mkdtemp(path.join(root, 'req-'));
    }
  };
  return async (ctx: Context, next: Next) => {
    const limits = limitsOf();
    const leases: BufferLease[] = [];
    const borrow = (size: number) => {
      const lease = pool.acquire(size);
      leases.push(lease);
      return lease.bytes;
    };
    let tmpDir: Promise<string> | null = null;
    const state: UploadRequestState = {
      tempDir: () => (tmpDir ??= requestFolder(limits.tmpRoot)),
      borrow,
      bodyError: null,
    };
    ctx.state.imageApi = state;
    try {
      const request = ctx.request as unknown as { body?: unknown; files?: Record<string, FilePart> };
      request.body = {};
      try {
        const declared = Number(ctx.get('content-length'));
        // A body declared bigger than any acceptable one is refused before a byte is read.
        if (Number.isFinite(declared) && declared > limits.maxTextBytes + MULTIPART_OVERHEAD) {
          throw errors.tooBig(limits.maxBytes);
        }
        if (['POST', 'PUT', 'PATCH'].includes(ctx.method)) {
          if (ctx.is('multipart')) {
            const { fields, files } = await parseMultipart(ctx, limits, borrow);
            request.body = fields;
            request.files = files;
          } else if (ctx.is('json', 'urlencoded')) {
            const { fields, files } = await parseText(ctx, limits, borrow);
            request.body = fields ?? {};
            request.files = files;
          }
        }
      } catch (error) {
        state.bodyError = error instanceof ApiError ? error : errors.badRequest('Malformed request body');
        // Parsing stops here and the answer goes out now. The unread rest of the body is discarded
        // as it arrives (never stored; Node's request timeout bounds it): closing the socket on
        // unread data would reset it and could cost the client the answer.
        ctx.req.resume();
      }
      await next();
    } finally {
      // Everything that read the parts (image work, provider writes) has settled by now.
      for (const lease of leases) lease.release();
      if (tmpDir) await fs.promises.rm(await tmpDir, { recursive: true, force: true });
    }
  };
}
