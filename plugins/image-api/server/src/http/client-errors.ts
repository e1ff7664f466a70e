/**
 * Errors Node's HTTP parser meets before a request reaches Koa: without a listener, Node answers a
 * bare status line (431 for headers over its limit, 408 for a request that took too long) and the
 * client learns nothing. These answers are in the API's error shape instead (docs/api.md, "Errors"):
 * - a GET of an upload route whose URL overflows the limit with a text `source`: the upload's own
 *   answer to base64 over GET (400/130), which is what such a request is;
 * - any other header overflow: 431, and a request that timed out: 408;
 * - anything else: Node's own answer (400), as without a listener.
 * Ordinary client trouble, so nothing is logged.
 */
import type { Server } from 'http';
import type { Socket } from 'net';
import { STATUS_CODES } from 'http';
import { errorBody, errors, type ApiError } from './api-error';

const rawResponse = (error: ApiError) => {
  const body = JSON.stringify(errorBody(error));
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
};

/** The answer to a header overflow: what the request line shows of it decides. */
export function headerOverflowAnswer(rawPacket: Buffer | undefined, isUploadPath: (path: string) => boolean): ApiError {
  const requestLine = (rawPacket ?? Buffer.alloc(0)).subarray(0, 8192).toString('latin1').split('\r\n')[0];
  const [method, target = ''] = requestLine.split(' ');
  const [path, query = ''] = target.split('?');
  if (method === 'GET' && isUploadPath(path) && /(^|&)(source|image)=(?!https?%3A|https?:)/i.test(query)) return errors.base64ViaGet();
  return errors.headersTooLarge();
}

export function answerClientErrors(server: Server, isUploadPath: (path: string) => boolean): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    const response = socket as Socket & { _httpMessage?: { headersSent?: boolean } };
    if (socket.writable && !response._httpMessage?.headersSent) {
      if (error.code === 'HPE_HEADER_OVERFLOW') socket.write(rawResponse(headerOverflowAnswer(error.rawPacket, isUploadPath)));
      else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.write(rawResponse(errors.requestTimeout()));
      else socket.write('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    }
    socket.destroy();
  });
}
