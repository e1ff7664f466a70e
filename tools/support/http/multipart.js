'use strict';
/**
 * multipart/form-data bodies, as clients send them: text fields first, then at most one file. The
 * frame (head and tail around the file's bytes) lets a caller send a large file without copying it.
 */
const crypto = require('crypto');

/**
 * @param {Record<string, string | number>} fields text parts, in order
 * @param {{ bytes: Buffer, name: string, type?: string, field?: string }} [file] the file part (`source` unless `field` says)
 * @returns {{ head: Buffer, tail: Buffer, contentType: string, length: number }}
 */
function multipartFrame(fields, file) {
  const boundary = `----imgapi${crypto.randomBytes(8).toString('hex')}`;
  const text = Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const fileHead = file
    ? `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'source'}"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`
    : '';
  const head = Buffer.from(text + fileHead);
  const tail = Buffer.from(`${file ? '\r\n' : ''}--${boundary}--\r\n`);
  return { head, tail, contentType: `multipart/form-data; boundary=${boundary}`, length: head.length + (file?.bytes.length ?? 0) + tail.length };
}

/** The whole body in one buffer, with the headers that go with it. */
function multipart(fields, file) {
  const frame = multipartFrame(fields, file);
  const body = Buffer.concat(file ? [frame.head, file.bytes, frame.tail] : [frame.head, frame.tail]);
  return { body, type: frame.contentType, headers: { 'Content-Type': frame.contentType, 'Content-Length': body.length } };
}

module.exports = { multipart, multipartFrame };
