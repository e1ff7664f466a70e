/**
 * Multipart bodies, with busboy. `source`/`image` parts are collected in memory into buffers lent by
 * the request scope; each is capped (the image limit for a file part, the text limit for an untyped
 * one that may hold base64), and so is the whole body, whatever part its bytes are in (a chunked
 * body declares no length: 300 MB in another field were once read to their end). Parsing stops the
 * moment a cap is passed, and nothing touches the disk. Which part is the image is not decided here
 * (protocol/source-precedence.ts).
 */
import Busboy, { type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { Context } from 'koa';
import { errors } from '../../http/api-error';
import { addField, maxBodyBytes, noFields, SOURCE_PARTS, type BodyLimits, type BodyPart, type ParsedBody, type TextFields } from './body';

export async function parseMultipart(ctx: Context, limits: BodyLimits, borrow: (size: number) => Buffer): Promise<ParsedBody> {
  const fields: TextFields = noFields();
  const parts: BodyPart[] = [];
  let tooBig = false;

  // The request's listeners, taken off once the body is read: the request may outlive the upload
  // (an async resource made while it ran keeps its context), and they hold the parts.
  let onAborted: () => void = () => undefined;
  let onData: (chunk: Buffer) => void = () => undefined;
  await new Promise<void>((resolve, reject) => {
    let parser: BusboyInstance;
    // Stops parsing at once; the caller answers and discards the rest.
    const abort = (error: unknown) => {
      ctx.req.unpipe(parser);
      reject(error);
    };
    onAborted = () => abort(errors.badRequest('Request aborted'));
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
      // Neither file name nor type (busboy reports text/plain then): text or raw bytes.
      const untyped = filename === undefined && mimetype === 'text/plain';
      const part: BodyPart = { name, bytes: Buffer.alloc(0), filename: filename ?? null, arrived: untyped ? 'untyped' : 'file' };
      parts.push(part);
      // A part that is certainly a file stops at the image limit; an untyped one may hold base64 text.
      const cap = untyped ? limits.maxTextBytes : limits.maxBytes;
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > cap) abort(errors.tooBig(limits.maxBytes));
        else chunks.push(chunk);
      });
      stream.on('end', () => {
        part.bytes = borrow(size);
        let offset = 0;
        for (const chunk of chunks) offset += chunk.copy(part.bytes, offset);
      });
      // A part cut short (truncated multipart) errors on its own stream: without this listener that
      // error would be unhandled and take the process down.
      stream.on('error', () => abort(errors.badRequest('Malformed multipart body')));
    });
    // Past busboy's counts the rest would be skipped silently: an upload never sends that many.
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () => abort(errors.badRequest('Malformed multipart body: too many fields')));
    }
    parser.on('finish', resolve);
    parser.on('error', () => reject(errors.badRequest('Malformed multipart body')));
    ctx.req.on('aborted', onAborted);
    const maxTotal = maxBodyBytes(limits);
    let total = 0;
    onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxTotal) abort(errors.tooBig(limits.maxBytes));
    };
    ctx.req.on('data', onData);
    ctx.req.pipe(parser);
  }).finally(() => {
    ctx.req.off('aborted', onAborted);
    ctx.req.off('data', onData);
  });
  if (tooBig) throw errors.tooBig(limits.maxBytes);

  return { fields, parts };
}
